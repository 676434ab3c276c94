import { test } from "node:test";
import assert from "node:assert/strict";
import { awaitingEnded, memoryStore, needsRefresh, refreshRequest, rotated, Session } from "../src/session";

test("the identity and the game survive a reload; the seq only moves forward", () => {
  const store = memoryStore();
  const s = new Session(store);
  assert.equal(s.me, undefined);
  s.me = { token: "t", playerId: "p", name: "Ana", expiresAt: 5 };
  s.game = { matchId: "m", lastSeq: "0" };
  const again = new Session(store); // a reload reads the same storage
  assert.equal(again.me!.name, "Ana");
  again.saveSeq("m", 7n);
  assert.equal(new Session(store).game!.lastSeq, "7");
  again.saveSeq("m", 3n);
  assert.equal(again.game!.lastSeq, "7", "never backwards");
  again.saveSeq("other", 9n);
  assert.equal(again.game!.lastSeq, "7", "another match's seq is not this one's");
  again.signOut();
  assert.equal(again.me, undefined);
  assert.equal(again.game, undefined);
});

test("damaged storage reads as nothing", () => {
  const store = memoryStore();
  store.setItem("tabuleiro.identity", "{not json");
  store.setItem("tabuleiro.game", JSON.stringify({ matchId: "m", lastSeq: "x" }));
  const s = new Session(store);
  assert.equal(s.me, undefined);
  assert.equal(s.game, undefined);
});

test("tokens are refreshed within an hour of expiry", () => {
  const id = { token: "t", playerId: "p", name: "A", expiresAt: 10 * 3600_000 };
  assert.ok(!needsRefresh(id, 8 * 3600_000));
  assert.ok(needsRefresh(id, 9.5 * 3600_000));
  assert.ok(needsRefresh(id, 11 * 3600_000));
});

test("a refresh sends the refresh token and keeps the rotated one", () => {
  const store = memoryStore();
  const s = new Session(store);
  s.me = { token: "t1", playerId: "p", name: "A", expiresAt: 1, refreshToken: "r1" };
  assert.deepEqual(refreshRequest(s.me!), { refreshToken: "r1" });
  s.me = rotated(s.me!, { token: "t2", refreshToken: "r2" }, 99);
  const again = new Session(store).me!;
  assert.equal(again.refreshToken, "r2", "the spent refresh token is replaced");
  assert.equal(again.token, "t2");
  assert.equal(again.expiresAt, 99);
  assert.deepEqual(refreshRequest(again), { refreshToken: "r2" });
  // Kept before refresh tokens: the token itself is exchanged, once.
  assert.deepEqual(refreshRequest({ token: "old", playerId: "p", name: "A", expiresAt: 1 }), { token: "old" });
});

test("History waits for the game that just ended here, for a while, and forgets it on sign-out", () => {
  const store = memoryStore();
  const s = new Session(store);
  assert.equal(s.ended, undefined);
  s.ended = { matchId: "M1", at: 1000 };
  const ended = new Session(store).ended;
  assert.deepEqual(ended, { matchId: "M1", at: 1000 }, "kept across page loads");
  assert.ok(awaitingEnded(ended, ["M0"], 2000, 30_000), "not yet listed: waited for");
  assert.ok(!awaitingEnded(ended, ["M0", "M1"], 2000, 30_000), "listed: nothing to wait for");
  assert.ok(!awaitingEnded(ended, ["M0"], 31_000, 30_000), "waited long enough: the list is shown as it is");
  assert.ok(!awaitingEnded(undefined, [], 2000, 30_000));
  s.signOut();
  assert.equal(s.ended, undefined);
});
