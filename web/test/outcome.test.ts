import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { Game, OutcomeSchema, Reason, Result, Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { outcomeLine, outcomeTitle } from "../src/notation";

const names: [string, string] = ["Ana", "Bo"];
const { QUORIDOR: Q, CORNERS: C, BANQI: B } = Game;
const { FIRST, SECOND, UNSPECIFIED } = Seat;

// Every way each game ends (RULES.md Q4, C4–C6, B5; the match service's
// resignation, time, abandonment, agreement and aborted), read by the
// winner, the loser and a spectator (the first seat wins each win here).
// [game, reason, won?, winner's line, loser's line, spectator's line]
const wins: [Game, Reason, string, string, string][] = [
  [Q, Reason.GOAL, "You reached the goal row.", "Your opponent reached the goal row.", "Ana reached the goal row."],
  [C, Reason.GOAL, "You filled your opponent's home first.", "Your opponent filled your home first.", "Ana filled Bo's home first."],
  [C, Reason.MOVE_LIMIT, "The move limit was reached with more of your pieces in your opponent's home.",
    "The move limit was reached with more of your opponent's pieces in your home.",
    "The move limit was reached with more of Ana's pieces in Bo's home."],
  [C, Reason.DEADLINE, "Your opponent still had a piece at home after the leave-home deadline.",
    "You still had a piece at home after the leave-home deadline.",
    "Bo still had a piece at home after the leave-home deadline."],
  [C, Reason.RETURN_HOME, "Your opponent moved a piece back into their own home after the leave-home deadline.",
    "You moved a piece back into your own home after the leave-home deadline.",
    "Bo moved a piece back into their own home after the leave-home deadline."],
  [B, Reason.NO_LEGAL_MOVE, "Your opponent had no legal move left.", "You had no legal move left.", "Bo had no legal move left."],
  [B, Reason.NO_PIECES, "Your opponent had no pieces left.", "You had no pieces left.", "Bo had no pieces left."],
];
// Resignation, time and abandonment end every game alike.
for (const g of [Q, C, B]) {
  wins.push(
    [g, Reason.RESIGNATION, "Your opponent resigned.", "You resigned.", "Bo resigned."],
    [g, Reason.TIME, "Your opponent ran out of time.", "You ran out of time.", "Bo ran out of time."],
    [g, Reason.ABANDONMENT, "Your opponent left the game and did not come back in time.", "You left the game and did not come back in time.",
      "Bo left the game and did not come back in time."],
  );
}

test("every win reads as a sentence for the winner, the loser and a spectator", () => {
  for (const [game, reason, won, lost, watched] of wins) {
    const o = create(OutcomeSchema, { result: Result.WIN, winner: FIRST, reason });
    const at = `${Game[game]} ${Reason[reason]}`;
    assert.equal(outcomeTitle(o, FIRST, names), "You won", at);
    assert.equal(outcomeLine(o, game, FIRST, names), won, at);
    assert.equal(outcomeTitle(o, SECOND, names), "You lost", at);
    assert.equal(outcomeLine(o, game, SECOND, names), lost, at);
    assert.equal(outcomeTitle(o, UNSPECIFIED, names), "Ana won", at);
    assert.equal(outcomeLine(o, game, UNSPECIFIED, names), watched, at);
  }
  // The second seat winning: the names follow the seats.
  const bo = create(OutcomeSchema, { result: Result.WIN, winner: SECOND, reason: Reason.GOAL });
  assert.equal(outcomeTitle(bo, UNSPECIFIED, names), "Bo won");
  assert.equal(outcomeLine(bo, Q, UNSPECIFIED, names), "Bo reached the goal row.");
  assert.equal(outcomeLine(bo, C, UNSPECIFIED, names), "Bo filled Ana's home first.");
  assert.equal(outcomeLine(bo, C, FIRST, names), "Your opponent filled your home first.");
});

test("every draw reads as a sentence, the same for the players and a spectator but for agreement", () => {
  const draws: [Game, Reason, string][] = [
    [Q, Reason.PLY_LIMIT, "200 plies were played without a winner."],
    [B, Reason.PLY_LIMIT, "120 plies in a row went by without a capture or a reveal."],
    [C, Reason.GOAL, "Both players filled the other's home on the same move."],
    [C, Reason.MOVE_LIMIT, "The move limit was reached with both players having the same number of pieces in the other's home."],
    [C, Reason.DEADLINE, "Both players still had a piece at home after the leave-home deadline."],
    [C, Reason.REPETITION, "The same position came up for the third time."],
    [C, Reason.NO_LEGAL_MOVE, "The player to move had no legal move."],
  ];
  for (const [game, reason, line] of draws) {
    const o = create(OutcomeSchema, { result: Result.DRAW, reason });
    for (const you of [FIRST, SECOND, UNSPECIFIED]) {
      assert.equal(outcomeTitle(o, you, names), "Draw", `${Game[game]} ${Reason[reason]}`);
      assert.equal(outcomeLine(o, game, you, names), line, `${Game[game]} ${Reason[reason]} ${Seat[you]}`);
    }
  }
  const agreed = create(OutcomeSchema, { result: Result.DRAW, reason: Reason.AGREEMENT });
  for (const g of [C, B]) {
    assert.equal(outcomeLine(agreed, g, FIRST, names), "You and your opponent agreed to a draw.");
    assert.equal(outcomeLine(agreed, g, SECOND, names), "You and your opponent agreed to a draw.");
    assert.equal(outcomeLine(agreed, g, UNSPECIFIED, names), "Ana and Bo agreed to a draw.");
  }
});

test("an aborted game and a training game say what happened, and no line is 'by' anything", () => {
  const aborted = create(OutcomeSchema, { result: Result.DRAW, reason: Reason.ABORTED });
  for (const g of [Q, C, B]) {
    assert.equal(outcomeTitle(aborted, FIRST, names), "Game aborted");
    assert.equal(outcomeLine(aborted, g, FIRST, names), "The game was called off before both players had played: nobody played a first ply in time, a player never came, or one left or resigned before their first ply. It does not count.");
  }
  // Corners training (one seat): resigned or left, it ends as aborted.
  assert.equal(outcomeLine(aborted, C, FIRST, ["Ana", ""], true), "The training ended before the opposite home was filled. It does not count.");
  // Said why, when the plies are known: no move yet, or stopped on the way.
  assert.equal(outcomeLine(aborted, C, FIRST, ["Ana", ""], true, 0), "The training ended before its first move (it waited too long). It does not count.");
  assert.equal(outcomeLine(aborted, C, FIRST, ["Ana", ""], true, 12), "The training was stopped after 12 plies, before the opposite home was filled (resigned, or the page stayed closed too long). It does not count.");
  const completed = create(OutcomeSchema, { result: Result.WIN, winner: FIRST, reason: Reason.COMPLETED });
  assert.equal(outcomeTitle(completed, FIRST, ["Ana", ""]), "Training completed");
  assert.equal(outcomeLine(completed, C, FIRST, ["Ana", ""], true), "You filled the opposite home.");
  assert.equal(outcomeLine(completed, C, UNSPECIFIED, ["Ana", ""], true), "Ana filled the opposite home.");
  const limit = create(OutcomeSchema, { result: Result.DRAW, reason: Reason.MOVE_LIMIT });
  assert.equal(outcomeLine(limit, C, FIRST, ["Ana", ""], true), "The move limit was reached before the opposite home was filled.");
  // Nothing reads "You lost by goal reached" any more.
  for (const [game, reason] of wins) {
    for (const you of [FIRST, SECOND, UNSPECIFIED]) {
      const line = outcomeLine(create(OutcomeSchema, { result: Result.WIN, winner: FIRST, reason }), game, you, names);
      assert.doesNotMatch(line, /^by |goal reached/, line);
      assert.match(line, /^[A-Z0-9].*\.$/, `a sentence: ${line}`);
    }
  }
  assert.equal(outcomeLine(create(OutcomeSchema, { result: Result.ONGOING }), Q, FIRST, names), "");
  assert.equal(outcomeLine(undefined, Q, FIRST, names), "");
});

test("a spectator's lines name the seats by colour when the names are missing", () => {
  const o = create(OutcomeSchema, { result: Result.WIN, winner: SECOND, reason: Reason.TIME });
  assert.equal(outcomeLine(o, Q, UNSPECIFIED, ["", ""]), "White ran out of time.");
  assert.equal(outcomeLine(o, B, UNSPECIFIED, ["", ""]), "The first player ran out of time.");
});
