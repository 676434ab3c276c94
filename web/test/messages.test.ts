import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorText } from "../src/api";

// The refusals the match and lobby services word for programs, as the page shows them.
const raw: [Code, string][] = [
  [Code.FailedPrecondition, "ply 3 refused: the next ply is number 5"],
  [Code.FailedPrecondition, "ply 7 refused: the game is over"],
  [Code.FailedPrecondition, "match 01HX: game is over"],
  [Code.PermissionDenied, "that ply belongs to the other seat"],
  [Code.Aborted, "the seat joined again on another stream"],
  [Code.PermissionDenied, "you hold no seat in this match; spectators use Watch"],
  [Code.Aborted, "match changed; retry"],
  [Code.Unavailable, "not confirmed by a replica in time; retry with the same ply number"],
  [Code.FailedPrecondition, "player 01HXP is already in match 01HXM; finish or resign it first"],
];

test("a refusal worded for programs is shown in a player's words: what happened and what to do", () => {
  const shown = raw.map(([code, msg]) => errorText(new ConnectError(msg, code)));
  for (const [i, text] of shown.entries()) {
    const [, msg] = raw[i];
    assert.notEqual(text, msg, `rewritten: ${msg}`);
    assert.doesNotMatch(text, /\bply \d|refused|next ply is number|seat|stream|match \S|retry|replica|already in match/i, `${msg} → ${text}`);
    assert.match(text, /^[A-Z].*[.!]$/, `a sentence: ${text}`);
  }
  assert.match(shown[0], /moved on.*play again/);
  assert.match(shown[1], /already over/);
  assert.match(shown[4], /another tab.*Play here/);
  assert.match(shown[8], /already have a game in progress/);
});

test("a refusal written for people stays as the server wrote it", () => {
  const rule = "illegal ply e3h: the wall overlaps wall e3h (Q3.1)";
  assert.equal(errorText(new ConnectError(rule, Code.FailedPrecondition)), rule);
  assert.equal(errorText(new ConnectError("wrong room password", Code.PermissionDenied)), "wrong room password");
});
