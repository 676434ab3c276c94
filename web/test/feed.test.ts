import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ConnectError, Code } from "@connectrpc/connect";
import { Game, OutcomeSchema, PlySchema, Reason, Result, Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { GameViewSchema } from "../src/gen/tabuleiro/game/v1/view_pb";
import {
  MatchEventSchema, MatchSchema, MatchStatus, SeatStateSchema, ConnectionState, type Match, type MatchEvent,
} from "../src/gen/tabuleiro/match/v1/match_pb";
import { backoffMs, FeedLoop, MatchFeed, type FeedStatus, type StreamMessage } from "../src/feed";

function snapshot(lastSeq: bigint, plies = 0): Match {
  return create(MatchSchema, {
    matchId: "m1", game: Game.QUORIDOR, status: plies ? MatchStatus.IN_PROGRESS : MatchStatus.WAITING, lastSeq,
    seats: [Seat.FIRST, Seat.SECOND].map((s) => create(SeatStateSchema, { participant: { seat: s, displayName: `p${s}` }, connection: ConnectionState.CONNECTED })),
    plies: Array.from({ length: plies }, (_, i) => create(PlySchema, { number: i + 1, seat: i % 2 ? Seat.SECOND : Seat.FIRST, notation: `x${i + 1}` })),
    view: create(GameViewSchema, { game: Game.QUORIDOR, plyCount: plies }),
  });
}

function ply(seq: bigint, number: number): MatchEvent {
  return create(MatchEventSchema, {
    seq, at: { seconds: 1000n + seq, nanos: 0 },
    kind: { case: "plyPlayed", value: {
      ply: create(PlySchema, { number, seat: number % 2 ? Seat.FIRST : Seat.SECOND, notation: `x${number}` }),
      view: create(GameViewSchema, { game: Game.QUORIDOR, plyCount: number }),
    } },
  });
}

function ended(seq: bigint): MatchEvent {
  return create(MatchEventSchema, {
    seq, kind: { case: "gameEnded", value: { outcome: create(OutcomeSchema, { result: Result.WIN, winner: Seat.FIRST, reason: Reason.GOAL }) } },
  });
}

const ev = (e: MatchEvent): StreamMessage => ({ case: "event", value: e });
const snap = (m: Match): StreamMessage => ({ case: "snapshot", value: m });

test("a snapshot, then events in seq order; duplicates dropped; a gap asks to reopen", () => {
  const f = new MatchFeed();
  assert.equal(f.apply(ev(ply(1n, 1))), "gap", "no events before a snapshot");
  assert.equal(f.apply(snap(snapshot(3n, 1))), "applied");
  assert.equal(f.lastSeq, 3n);
  assert.equal(f.apply(ev(ply(3n, 1))), "duplicate");
  assert.equal(f.apply(ev(ply(4n, 2))), "applied");
  assert.equal(f.match!.plies.length, 2);
  assert.equal(f.match!.view!.plyCount, 2);
  assert.equal(f.match!.status, MatchStatus.IN_PROGRESS);
  assert.equal(f.apply(ev(ply(4n, 2))), "duplicate", "a replayed event is not applied twice");
  assert.equal(f.match!.plies.length, 2);
  assert.equal(f.apply(ev(ply(6n, 4))), "gap");
  assert.equal(f.lastSeq, 4n, "a gap changes nothing");
  assert.equal(f.apply({ case: "drain", value: { reason: "bye" } }), "drain");
});

test("draw offers, disconnections and the end are applied to the match", () => {
  const f = new MatchFeed();
  f.apply(snap(snapshot(1n, 1)));
  f.apply(ev(create(MatchEventSchema, { seq: 2n, kind: { case: "drawOffered", value: { by: Seat.FIRST } } })));
  assert.equal(f.match!.drawOfferedBy, Seat.FIRST);
  f.apply(ev(ply(3n, 2))); // the other seat plays: the offer lapses
  assert.equal(f.match!.drawOfferedBy, Seat.UNSPECIFIED);
  f.apply(ev(create(MatchEventSchema, { seq: 4n, kind: { case: "playerDisconnected", value: { seat: Seat.SECOND, reconnectDeadline: { seconds: 99n, nanos: 0 } } } })));
  assert.equal(f.match!.seats[1].connection, ConnectionState.DISCONNECTED);
  f.apply(ev(create(MatchEventSchema, { seq: 5n, kind: { case: "playerReconnected", value: { seat: Seat.SECOND } } })));
  assert.equal(f.match!.seats[1].connection, ConnectionState.CONNECTED);
  f.apply(ev(ended(6n)));
  assert.equal(f.match!.status, MatchStatus.FINISHED);
  assert.equal(f.match!.outcome!.reason, Reason.GOAL);
  assert.ok(f.previous, "the position before the last ply is kept");
});

test("a declined draw offer is remembered, by whom, until the next ply or a new offer", () => {
  const offer = (seq: bigint, by: Seat) => ev(create(MatchEventSchema, { seq, kind: { case: "drawOffered", value: { by } } }));
  const decline = (seq: bigint, by: Seat) => ev(create(MatchEventSchema, { seq, kind: { case: "drawDeclined", value: { by } } }));
  const f = new MatchFeed();
  f.apply(snap(snapshot(1n, 1)));
  assert.equal(f.drawDeclinedBy, Seat.UNSPECIFIED);
  f.apply(offer(2n, Seat.FIRST));
  f.apply(decline(3n, Seat.SECOND));
  assert.equal(f.match!.drawOfferedBy, Seat.UNSPECIFIED, "the offer is gone");
  assert.equal(f.drawDeclinedBy, Seat.SECOND, "and who declined it is kept");
  assert.equal(f.mayOfferDraw(Seat.FIRST), false, "the declined offer is not made again at once");
  assert.equal(f.mayOfferDraw(Seat.SECOND), true, "the one who declined may offer");
  // A snapshot of the same position (a reconnect) keeps it.
  f.apply(snap(snapshot(3n, 1)));
  assert.equal(f.drawDeclinedBy, Seat.SECOND, "a reconnect's snapshot of the same position keeps it");
  f.apply(ev(ply(4n, 2)));
  assert.equal(f.drawDeclinedBy, Seat.UNSPECIFIED, "the next ply clears it");
  assert.equal(f.mayOfferDraw(Seat.FIRST), true, "after the next ply it may be offered again");
  f.apply(offer(5n, Seat.SECOND));
  f.apply(decline(6n, Seat.FIRST));
  assert.equal(f.drawDeclinedBy, Seat.FIRST);
  f.apply(offer(7n, Seat.FIRST));
  assert.equal(f.drawDeclinedBy, Seat.UNSPECIFIED, "a new offer clears it");
  f.apply(decline(8n, Seat.SECOND));
  f.apply(snap(snapshot(9n, 3)));
  assert.equal(f.drawDeclinedBy, Seat.UNSPECIFIED, "a snapshot of a later position clears it");
  f.apply(offer(10n, Seat.FIRST));
  f.apply(decline(11n, Seat.SECOND));
  f.apply(ev(ended(12n)));
  assert.equal(f.drawDeclinedBy, Seat.UNSPECIFIED, "the end clears it");
});

/** A scripted server: each open() call plays the next script with the last_seq it was given. */
function scripted(scripts: ((lastSeq: bigint) => AsyncGenerator<{ message: StreamMessage }>)[]) {
  const opens: bigint[] = [];
  let i = 0;
  return {
    opens,
    open: (lastSeq: bigint, _signal: AbortSignal) => {
      opens.push(lastSeq);
      const s = scripts[Math.min(i++, scripts.length - 1)];
      return s(lastSeq);
    },
  };
}

test("FeedLoop reconnects after a network loss with the last seq seen, and stops at the game's end", async () => {
  const statuses: FeedStatus[] = [];
  const server = scripted([
    async function* () {
      yield { message: snap(snapshot(2n, 1)) };
      yield { message: ev(ply(3n, 2)) };
      throw new ConnectError("network down", Code.Unavailable);
    },
    async function* (seq) {
      assert.equal(seq, 3n);
      // The server replays from its own horizon: one duplicate, then new events.
      yield { message: ev(ply(3n, 2)) };
      yield { message: ev(ply(4n, 3)) };
      yield { message: ev(ended(5n)) };
    },
  ]);
  const updates: bigint[] = [];
  const loop = new FeedLoop({
    open: server.open,
    onUpdate: (f) => updates.push(f.lastSeq),
    onStatus: (s) => statuses.push(s),
    sleep: async () => {},
    settleMs: 5,
  });
  await loop.done;
  assert.deepEqual(server.opens, [0n, 3n]);
  assert.deepEqual(updates, [2n, 3n, 4n, 5n], "each event applied once");
  assert.equal(loop.feed.match!.plies.length, 3);
  assert.equal(statuses[0], "connecting");
  assert.ok(statuses.includes("reconnecting"));
  assert.equal(statuses.at(-1), "ended");
});

test("FeedLoop reopens at once on a gap or a drain; gives up on a fatal error", async () => {
  const server = scripted([
    async function* () {
      yield { message: snap(snapshot(1n, 1)) };
      yield { message: ev(ply(3n, 3)) }; // seq 2 missing
    },
    async function* () {
      yield { message: ev(ply(2n, 2)) };
      yield { message: { case: "drain", value: { reason: "shutting down" } } as StreamMessage };
    },
    async function* () {
      throw new ConnectError("no such match", Code.NotFound);
    },
  ]);
  const sleeps: number[] = [];
  const statuses: FeedStatus[] = [];
  const loop = new FeedLoop({
    open: server.open, onUpdate: () => {}, onStatus: (s) => statuses.push(s),
    sleep: async (ms) => void sleeps.push(ms), settleMs: 5,
  });
  await loop.done;
  assert.deepEqual(server.opens, [0n, 1n, 2n]);
  assert.deepEqual(sleeps, [0, 0], "a gap or a drain reopens without waiting");
  assert.equal(statuses.at(-1), "failed");
});

test("FeedLoop backs off on repeated failures, and stop() ends it", async () => {
  let n = 0;
  const sleeps: number[] = [];
  const loop: FeedLoop = new FeedLoop({
    open: () => (async function* () {
      if (++n >= 4) loop.stop();
      throw new ConnectError("unavailable", Code.Unavailable);
    })(),
    onUpdate: () => {}, onStatus: () => {},
    sleep: async (ms) => void sleeps.push(ms), settleMs: 1000,
  });
  await loop.done;
  assert.deepEqual(sleeps, [250, 500, 1000]);
  assert.equal(backoffMs(10), 4000);
});

test("FeedLoop takes a silent stream for dead after idleMs and reopens it; heartbeats keep it alive", async () => {
  const opens: bigint[] = [];
  let n = 0;
  const statuses: FeedStatus[] = [];
  const loop = new FeedLoop({
    open: (seq, signal) => (async function* () {
      opens.push(seq);
      n++;
      if (n === 1) {
        yield { message: snap(snapshot(1n, 1)) };
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setTimeout(r, 20));
          yield { message: { case: "heartbeat", value: { serverTime: { seconds: 5n, nanos: 0 } } } as StreamMessage };
        }
        // Then silence: the network dropped without an error.
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new ConnectError("aborted", Code.Canceled))));
      }
      yield { message: ev(ended(2n)) };
    })(),
    onUpdate: () => {}, onStatus: (s) => statuses.push(s),
    sleep: async () => {}, settleMs: 1000, idleMs: 60,
  });
  await loop.done;
  assert.deepEqual(opens, [0n, 1n], "reopened once, after the silence, not during the heartbeats");
  assert.equal(statuses.at(-1), "ended");
});

test("FeedLoop answers a lag probe at once and applies nothing for it", async () => {
  const probes: bigint[] = [];
  const updates: bigint[] = [];
  const server = scripted([
    async function* () {
      yield { message: snap(snapshot(1n, 1)) };
      yield { message: { case: "probe", value: { id: 42n } } as StreamMessage };
      yield { message: ev(ply(2n, 2)) };
      yield { message: { case: "probe", value: { id: 43n } } as StreamMessage };
      yield { message: ev(ended(3n)) };
    },
  ]);
  const loop = new FeedLoop({
    open: server.open, onUpdate: (f) => updates.push(f.lastSeq), onStatus: () => {},
    onProbe: (id) => probes.push(id), sleep: async () => {}, settleMs: 5,
  });
  await loop.done;
  assert.deepEqual(probes, [42n, 43n], "each probe answered, in order");
  assert.deepEqual(updates, [1n, 2n, 3n], "probes are not applied");
});
