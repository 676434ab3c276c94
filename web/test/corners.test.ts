import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { renderBoard } from "../src/board";
import { cornersMoveLine, returnHomeLoses } from "../src/corners";
import { Game, Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { CornersBoardSchema, GameViewSchema } from "../src/gen/tabuleiro/game/v1/view_pb";

const WHITE_HOME = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];
const BLACK_HOME = ["f6", "g6", "h6", "f7", "g7", "h7", "f8", "g8", "h8"];

function corners(moveNumber: number, deadlineMove = 40, moveLimit = 80) {
  return create(GameViewSchema, {
    game: Game.CORNERS,
    variant: "classic-3x3",
    toMove: Seat.FIRST,
    plyCount: (moveNumber - 1) * 2,
    board: {
      case: "corners",
      value: create(CornersBoardSchema, {
        size: 8, moveNumber, deadlineMove, moveLimit,
        first: { pieces: ["d2", "e4"], home: WHITE_HOME, target: BLACK_HOME },
        second: { pieces: ["e6", "d5"], home: BLACK_HOME, target: WHITE_HOME },
      }),
    },
  });
}

test("C5.2: after the deadline a ply ending in the mover's own home loses; before it, or elsewhere, it does not", () => {
  assert.equal(returnHomeLoses(corners(41), Seat.FIRST, "c2"), true, "white back home at move 41");
  assert.equal(returnHomeLoses(corners(41), Seat.FIRST, "d3"), false, "outside the home");
  assert.equal(returnHomeLoses(corners(41), Seat.SECOND, "f6"), true, "black back home at move 41");
  assert.equal(returnHomeLoses(corners(41), Seat.SECOND, "c2"), false, "black in white's home is its target");
  assert.equal(returnHomeLoses(corners(40), Seat.FIRST, "c2"), false, "move 40 is still before the deadline passed");
  assert.equal(returnHomeLoses(corners(41, 0, 80), Seat.FIRST, "c2"), false, "training: no deadline");
});

test("the Corners move line names the move, the last move and the leave-home deadline", () => {
  const b = (v: ReturnType<typeof corners>) => (v.board.case === "corners" ? v.board.value : undefined)!;
  assert.equal(cornersMoveLine(b(corners(23))), "Move 23 of 80 · leave home by move 40");
  assert.equal(cornersMoveLine(b(corners(41))), "Move 41 of 80 · leave home by move 40");
  assert.equal(cornersMoveLine(b(corners(5, 0, 80))), "Move 5 of 80", "training: no deadline");
  assert.equal(cornersMoveLine(b(corners(5, 60, 200))), "Move 5 of 200 · leave home by move 60");
});

test("a destination that loses the game under C5.2 is drawn as a warning dot, the others as plain dots", () => {
  const s = renderBoard({ view: corners(41), flipped: false, selected: "d2", destinations: ["c2", "d3", "e2"], losing: ["c2"] });
  assert.match(s, /<circle class="dest lose" data-dest="c2"/);
  assert.match(s, /<circle class="dest" data-dest="d3"/);
  assert.match(s, /<circle class="dest" data-dest="e2"/);
  const plain = renderBoard({ view: corners(41), flipped: false, selected: "d2", destinations: ["c2", "d3"] });
  assert.doesNotMatch(plain, /dest lose/);
});
