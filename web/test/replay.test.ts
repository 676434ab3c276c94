import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { BanqiColor, BanqiPiece, Game, PlySchema, Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { cornersHome, mirrorSquare, replayViews } from "../src/replay";

const plies = (_game: Game, list: string[], revealed: Record<number, BanqiPiece> = {}) =>
  list.map((n, i) => create(PlySchema, { number: i + 1, seat: i % 2 ? Seat.SECOND : Seat.FIRST, notation: n, revealed: revealed[i + 1] ?? BanqiPiece.UNSPECIFIED }));

test("Quoridor: pawns move, walls are placed and counted, ply by ply", () => {
  const v = replayViews(Game.QUORIDOR, "standard", plies(Game.QUORIDOR, ["e2", "e8", "e3h", "d7v"]), "");
  assert.equal(v.length, 5);
  const b = (i: number) => (v[i].board.case === "quoridor" ? v[i].board.value : undefined)!;
  assert.equal(b(0).first!.pawn, "e1");
  assert.equal(b(2).first!.pawn, "e2");
  assert.equal(b(2).second!.pawn, "e8");
  assert.equal(b(4).walls.length, 2);
  assert.equal(b(4).walls[1].placedBy, Seat.SECOND);
  assert.equal(b(4).first!.wallsLeft, 9);
  assert.equal(b(4).second!.wallsLeft, 9);
  assert.equal(b(1).walls.length, 0, "earlier positions are not changed by later plies");
  assert.equal(v[4].lastPly!.notation, "d7v");
  assert.equal(v[4].toMove, Seat.FIRST);
});

test("Corners: homes per variant (C2), mirrored; pieces follow their paths", () => {
  assert.equal(cornersHome("classic-3x3").home.length, 9);
  assert.equal(cornersHome("classic-3x4").home.length, 12);
  assert.equal(cornersHome("triangle").home.length, 10);
  assert.equal(cornersHome("square-4x4").home.length, 16);
  assert.equal(cornersHome("halma-16x16").home.length, 19);
  assert.equal(mirrorSquare("a1", 8), "h8");
  assert.equal(mirrorSquare("c2", 16), "n15");
  const v = replayViews(Game.CORNERS, "classic-3x3", plies(Game.CORNERS, ["c3-d3", "f6-e6", "b3-d3-d5"].slice(0, 2)), "");
  const b = v[2].board.case === "corners" ? v[2].board.value : undefined;
  assert.ok(b!.first!.pieces.includes("d3") && !b!.first!.pieces.includes("c3"));
  assert.ok(b!.second!.pieces.includes("e6"));
  assert.deepEqual(b!.lastPath, ["f6", "e6"]);
  const training = replayViews(Game.CORNERS, "training", [], "");
  assert.equal(training[0].board.case === "corners" && training[0].board.value.second!.pieces.length, 0);
});

test("Banqi: reveals name the layout's piece and fix the colours (B2); captures are kept", () => {
  // a1 red soldier, b1 black soldier, rest don't matter.
  const layout = "Pp" + "K".repeat(30);
  const v = replayViews(Game.BANQI, "standard", plies(Game.BANQI, ["a1", "b1", "a1xb1"]), layout);
  assert.equal(v.length, 4);
  const b = (i: number) => (v[i].board.case === "banqi" ? v[i].board.value : undefined)!;
  assert.equal(b(0).cells.filter((c) => c.state.case === "faceDown").length, 32);
  assert.equal(b(1).cells[0].state.value, BanqiPiece.RED_SOLDIER);
  assert.equal(b(1).firstColor, BanqiColor.RED, "the first reveal gives the first seat its colour");
  assert.equal(b(3).cells[0].state.case, "empty");
  assert.equal(b(3).cells[1].state.value, BanqiPiece.RED_SOLDIER);
  assert.deepEqual(b(3).captured, [BanqiPiece.BLACK_SOLDIER]);
  // A reveal's piece in the ply itself wins over the layout.
  const w = replayViews(Game.BANQI, "standard", plies(Game.BANQI, ["c2"], { 1: BanqiPiece.BLACK_CANNON }), "");
  assert.equal(w[1].board.case === "banqi" && w[1].board.value.cells[10].state.value, BanqiPiece.BLACK_CANNON);
  assert.equal(w[1].board.case === "banqi" && w[1].board.value.firstColor, BanqiColor.BLACK);
});

test("an unreadable ply stops the replay there", () => {
  const v = replayViews(Game.QUORIDOR, "standard", plies(Game.QUORIDOR, ["e2", "??", "e3"]), "");
  assert.equal(v.length, 2);
});
