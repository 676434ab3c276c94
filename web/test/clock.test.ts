import { test } from "node:test";
import assert from "node:assert/strict";
import { Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { formatClock, lowTime, remainingMs, returnText, ServerClock } from "../src/clock";

test("the running clock ticks from as_of; the other stands still", () => {
  const server = new ServerClock();
  server.observe(10_000, 10_000); // local and server clocks agree
  const c = { firstMs: 60_000, secondMs: 30_000, running: Seat.FIRST, asOfMs: 10_000 };
  assert.equal(remainingMs(c, Seat.FIRST, 10_000, server), 60_000);
  assert.equal(remainingMs(c, Seat.FIRST, 12_500, server), 57_500);
  assert.equal(remainingMs(c, Seat.SECOND, 12_500, server), 30_000);
  assert.equal(remainingMs(c, Seat.FIRST, 100_000, server), 0, "never below zero");
});

test("no clock runs when no seat is running (game over, first ply pending)", () => {
  const server = new ServerClock();
  const c = { firstMs: 5_000, secondMs: 6_000, running: Seat.UNSPECIFIED, asOfMs: 0 };
  assert.equal(remainingMs(c, Seat.FIRST, 1e12, server), 5_000);
  assert.equal(remainingMs(c, Seat.SECOND, 1e12, server), 6_000);
});

test("a local clock that is off is corrected by the server's timestamps", () => {
  // The browser's clock is 7 s behind the server's; the network takes 40 ms.
  const server = new ServerClock();
  const skew = 7_000;
  const localAt = (serverMs: number) => serverMs - skew;
  server.observe(100_000, localAt(100_000) + 40);
  server.observe(101_000, localAt(101_000) + 15);
  server.observe(102_000, localAt(102_000) + 90);
  assert.equal(server.offset, skew - 15, "the fastest delivery bounds the offset best");
  const c = { firstMs: 60_000, secondMs: 60_000, running: Seat.SECOND, asOfMs: 102_000 };
  // 3 s of server time after as_of, seen locally:
  const shown = remainingMs(c, Seat.SECOND, localAt(105_000), server);
  assert.ok(Math.abs(shown - 57_000) <= 20, `shown ${shown}`);
});

test("a resync replaces the local estimate: the server's remaining time wins", () => {
  const server = new ServerClock();
  server.observe(0, 0);
  const before = { firstMs: 60_000, secondMs: 60_000, running: Seat.FIRST, asOfMs: 0 };
  assert.equal(remainingMs(before, Seat.FIRST, 10_000, server), 50_000);
  // The server says first had 52.3 s at t=9.5 s (an increment, or lag compensation).
  const after = { firstMs: 52_300, secondMs: 60_000, running: Seat.FIRST, asOfMs: 9_500 };
  assert.equal(remainingMs(after, Seat.FIRST, 10_000, server), 51_800);
});

test("old observations age out of the estimate", () => {
  const server = new ServerClock(3);
  server.observe(5_000, 0); // a wrong, early bound
  for (let i = 1; i <= 3; i++) server.observe(i * 1000 + 100, i * 1000);
  assert.equal(server.offset, 100);
});

test("clocks are written as game sites write them", () => {
  assert.equal(formatClock(3_723_000), "1:02:03");
  assert.equal(formatClock(245_000), "4:05");
  assert.equal(formatClock(20_000), "0:20");
  assert.equal(formatClock(19_999), "19.9");
  assert.equal(formatClock(9_340), "9.3");
  assert.equal(formatClock(0), "0.0");
  assert.equal(formatClock(-5), "0.0");
  assert.ok(lowTime(10_000, 180_000));
  assert.ok(!lowTime(60_000, 180_000));
});

test("an absent player's time to return reads in the largest unit that fits", () => {
  assert.equal(returnText(42_000), "42 s");
  assert.equal(returnText(59_001), "60 s");
  assert.equal(returnText(0), "0 s");
  assert.equal(returnText(-5), "0 s");
  assert.equal(returnText(60_000), "1 min");
  assert.equal(returnText(9 * 60_000 - 500), "9 min");
  assert.equal(returnText(5 * 3_600_000), "5 h");
  assert.equal(returnText(2_591_793_000), "30 days", "a no-clock game's 30-day window, not 2591793 s");
});
