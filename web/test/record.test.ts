import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError } from "../src/api";
import { bannerOnly } from "../src/feed";
import { loadRecord, sawEnd } from "../src/record";

const notFound = () => Promise.reject(new ConnectError("game g: not found", Code.NotFound));

// A game this tab did not see end (a private live game opened by a
// non-player, an id that never was): one call, no wait, no record.
test("a record not found is not retried unless this tab saw its game end", async () => {
  let calls = 0;
  const slept: number[] = [];
  const rec = await loadRecord("g1", () => (calls++, notFound()), async (ms) => void slept.push(ms));
  assert.equal(rec, undefined);
  assert.equal(calls, 1);
  assert.deepEqual(slept, []);
});

// A game that just ended here may take a moment to be recorded.
test("a game seen ending here is retried until recorded", async () => {
  sawEnd("g2");
  let calls = 0;
  const rec = await loadRecord("g2", () => (++calls < 3 ? notFound() : Promise.resolve("rec")), async () => {});
  assert.equal(rec, "rec");
  assert.equal(calls, 3);
  let more = 0;
  sawEnd("g3");
  assert.equal(await loadRecord("g3", () => (more++, notFound()), async () => {}), undefined);
  assert.ok(more > 1 && more <= 11, `${more} calls`);
});

test("other errors are thrown at once", async () => {
  sawEnd("g4");
  let calls = 0;
  await assert.rejects(loadRecord("g4", () => (calls++, Promise.reject(new ConnectError("down", Code.Unavailable))), async () => {}));
  assert.equal(calls, 1);
});

// The game page that failed before any state came shows its message alone,
// not the empty strips and panel of a game.
test("a failed game page without a match shows only its banner", () => {
  assert.equal(bannerOnly("failed", false), true);
  assert.equal(bannerOnly("failed", true), false);
  assert.equal(bannerOnly("connecting", false), false);
  assert.equal(bannerOnly("reconnecting", false), false);
});
