import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { BanqiPiece, BotLevel, BotRatingSchema, Game, OutcomeSchema, Reason, Result, Seat, VariantSchema } from "../src/gen/tabuleiro/game/v1/game_pb";
import { banqiFromLetter, banqiInfo, levelLabel, levelRating, levelTitle, moveRows, outcomeLine, outcomeTitle, plyShape, ratingRow, refusalText, timeControlText } from "../src/notation";

test("plyShape reads each game's notation (Q1, C1, B1)", () => {
  assert.deepEqual(plyShape(Game.QUORIDOR, "e2"), { kind: "pawn", to: { file: 4, rank: 1 } });
  assert.deepEqual(plyShape(Game.QUORIDOR, "e3h"), { kind: "wall", wall: { anchor: { file: 4, rank: 2 }, orientation: "h" } });
  assert.equal(plyShape(Game.QUORIDOR, "z9"), undefined);
  const chain = plyShape(Game.CORNERS, "c3-e3-e5");
  assert.deepEqual(chain, { kind: "move", capture: false, path: [{ file: 2, rank: 2 }, { file: 4, rank: 2 }, { file: 4, rank: 4 }] });
  assert.equal(plyShape(Game.CORNERS, "c3"), undefined, "a Corners ply has a path");
  assert.deepEqual(plyShape(Game.BANQI, "c2"), { kind: "reveal", at: { file: 2, rank: 1 } });
  assert.deepEqual(plyShape(Game.BANQI, "c2xc4"), { kind: "move", capture: true, path: [{ file: 2, rank: 1 }, { file: 2, rank: 3 }] });
});

test("moveRows numbers moves: a first-seat ply and the reply", () => {
  const rows = moveRows([1, 2, 3].map((n) => ({ number: n, notation: `p${n}` })));
  assert.deepEqual(rows, [
    { number: 1, first: { ply: 1, text: "p1" }, second: { ply: 2, text: "p2" } },
    { number: 2, first: { ply: 3, text: "p3" } },
  ]);
  assert.deepEqual(moveRows([]), []);
});

test("outcomes read from a seat's side or a spectator's", () => {
  const win = create(OutcomeSchema, { result: Result.WIN, winner: Seat.SECOND, reason: Reason.RESIGNATION });
  assert.equal(outcomeTitle(win, Seat.SECOND, ["Ana", "Bo"]), "You won");
  assert.equal(outcomeTitle(win, Seat.FIRST, ["Ana", "Bo"]), "You lost");
  assert.equal(outcomeTitle(win, Seat.UNSPECIFIED, ["Ana", "Bo"]), "Bo won");
  assert.equal(outcomeLine(win, Game.QUORIDOR, Seat.SECOND, ["Ana", "Bo"]), "Your opponent resigned.");
  const aborted = create(OutcomeSchema, { result: Result.DRAW, reason: Reason.ABORTED });
  assert.equal(outcomeTitle(aborted, Seat.FIRST, ["", ""]), "Game aborted");
  assert.doesNotMatch(outcomeLine(aborted, Game.QUORIDOR, Seat.FIRST, ["", ""]), /^by /, "an aborted game is not 'aborted by aborted'");
  assert.equal(outcomeTitle(create(OutcomeSchema, { result: Result.ONGOING }), Seat.FIRST, ["", ""]), "Game in progress");
});

test("Banqi pieces: letters of B1, colours, ranks", () => {
  assert.equal(banqiFromLetter("K"), BanqiPiece.RED_GENERAL);
  assert.equal(banqiFromLetter("p"), BanqiPiece.BLACK_SOLDIER);
  assert.equal(banqiFromLetter("x"), BanqiPiece.UNSPECIFIED);
  const all = "KABRNCPkabrncp".split("").map(banqiFromLetter);
  assert.equal(new Set(all).size, 14);
  for (const p of all) assert.equal(banqiInfo(p)!.letter, "KABRNCPkabrncp"[all.indexOf(p)]);
  assert.equal(banqiInfo(BanqiPiece.RED_CANNON)!.red, true);
  assert.equal(banqiInfo(BanqiPiece.BLACK_HORSE)!.red, false);
  assert.equal(banqiInfo(BanqiPiece.BLACK_HORSE)!.name, "Black horse");
  assert.equal(banqiInfo(BanqiPiece.UNSPECIFIED), undefined);
});

test("time controls read as players write them", () => {
  assert.equal(timeControlText(undefined), "No clock");
  assert.equal(timeControlText({ baseMs: 180000n, incrementMs: 2000n }), "3+2");
  assert.equal(timeControlText({ baseMs: 90000n, incrementMs: 500n }), "1.5+0.5");
});

test("a refusal names the ply once, then the server's reason", () => {
  assert.equal(refusalText("Wall e3h", "illegal ply e3h: the wall overlaps wall e3h (Q3.1)"), "Wall e3h: the wall overlaps wall e3h (Q3.1)");
  assert.equal(refusalText("Wall e3h", 'ply "e3h": the game is over'), "Wall e3h: the game is over");
  assert.equal(refusalText("Wall e3h", "not your turn"), "Wall e3h: not your turn");
  // A ply that does not parse names itself once in the server's reason.
  assert.equal(refusalText("Ply z9", 'ply "z9": syntax error at offset 0: file z is off the board (files a–i)'), "Ply z9: syntax error at offset 0: file z is off the board (files a–i)");
  assert.equal(refusalText("", "illegal ply e2: blocked"), "blocked");
});

test("bot levels are labelled with their ladder rating in the variant, when measured", () => {
  const v = create(VariantSchema, { game: Game.QUORIDOR, id: "standard", botRatings: [
    create(BotRatingSchema, { level: BotLevel.EASY, rating: 0, ratingLow: 0, ratingHigh: 0 }),
    create(BotRatingSchema, { level: BotLevel.MEDIUM, rating: 93, ratingLow: -161, ratingHigh: 347 }),
    create(BotRatingSchema, { level: BotLevel.HARD, rating: 663, ratingLow: 393, ratingHigh: 933 }),
  ] });
  const hard = levelRating(v, BotLevel.HARD);
  assert.equal(levelLabel(BotLevel.HARD, hard), "Hard · rating 663");
  assert.equal(levelTitle(hard), "ladder rating (Elo scale, easy = 0), 95% interval 393–933");
  assert.equal(levelTitle(levelRating(v, BotLevel.MEDIUM)), "ladder rating (Elo scale, easy = 0), 95% interval −161 to 347");
  assert.equal(levelTitle(levelRating(v, BotLevel.EASY)), "ladder rating (Elo scale, easy = 0)");
  assert.equal(levelLabel(BotLevel.EASY, levelRating(v, BotLevel.EASY)), "Easy · rating 0");
  // Not measured: the name alone, no tooltip.
  assert.equal(levelRating(v, BotLevel.EXPERT), undefined);
  assert.equal(levelLabel(BotLevel.EXPERT, levelRating(v, BotLevel.EXPERT)), "Expert");
  assert.equal(levelTitle(undefined), "");
  assert.equal(levelLabel(BotLevel.HARD, levelRating(undefined, BotLevel.HARD)), "Hard");
});

test("a refusal that names the viewer's own pawn says 'your pawn'; the other pawn, or nobody's view, keeps its colour", () => {
  const reason = "illegal ply e2h: the wall would leave white's pawn on e1 no path to rank 9 (Q3.4)";
  assert.equal(refusalText("Wall e2h", reason, Seat.FIRST), "Wall e2h: the wall would leave your pawn on e1 no path to rank 9 (Q3.4)");
  assert.equal(refusalText("Wall e2h", reason, Seat.SECOND), "Wall e2h: the wall would leave white's pawn on e1 no path to rank 9 (Q3.4)");
  assert.equal(refusalText("Wall e2h", reason), "Wall e2h: the wall would leave white's pawn on e1 no path to rank 9 (Q3.4)");
  assert.equal(refusalText("Wall d8h", "the wall would leave black's pawn on e9 no path to rank 1 (Q3.4)", Seat.SECOND), "Wall d8h: the wall would leave your pawn on e9 no path to rank 1 (Q3.4)");
});

test("the stats page names a rating's variant, never by its id", () => {
  assert.deepEqual(ratingRow({ game: Game.CORNERS, variant: "classic-3x3", rating: 1512.4, deviation: 80.6, games: 3 }), ["Corners", "Classic 3×3", "1,512", "81", "3"]);
});
