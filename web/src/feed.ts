// A match as the client follows it: the snapshot, then every event in seq
// order (match.v1 MatchEvent: numbered 1, 2, 3, … without gaps). MatchFeed
// applies what a Follow or Watch stream sends; FeedLoop keeps such a
// stream open, reconnecting with the last seq seen after a network loss or
// a drain, so that nothing is lost and nothing is applied twice.
import { clone } from "@bufbuild/protobuf";
import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { ConnectError, Code } from "@connectrpc/connect";
import { Seat } from "./gen/tabuleiro/game/v1/game_pb";
import {
  ConnectionState,
  MatchSchema,
  MatchStatus,
  type Match,
  type MatchEvent,
} from "./gen/tabuleiro/match/v1/match_pb";
import type { ClockSnapshot } from "./clock";

/** StreamMessage is what a Follow or Watch stream sends, as a oneof. */
export type StreamMessage =
  | { case: "snapshot"; value: Match }
  | { case: "event"; value: MatchEvent }
  | { case: "drain"; value: { reason: string } }
  | { case: "heartbeat"; value: { serverTime?: Timestamp } }
  | { case: "probe"; value: { id: bigint } }
  | { case: undefined; value?: undefined };

/** What applying a message asks of the stream's owner. */
export type ApplyResult = "applied" | "duplicate" | "gap" | "drain" | "ignored";

/**
 * MatchFeed holds a match and applies stream messages to it. A snapshot
 * replaces everything; an event with seq = lastSeq + 1 is applied; one at
 * or below lastSeq was seen already (a replay after a reconnect) and is
 * dropped; one beyond lastSeq + 1 means a gap, and the stream must be
 * reopened from lastSeq (the server then replays or sends a snapshot).
 */
export class MatchFeed {
  match: Match | undefined;
  lastSeq: bigint;
  /** previous is the match as it stood before the last ply (for marking the ply's start square). */
  previous: Match | undefined;
  /**
   * drawDeclinedBy is the seat that last declined a draw offer, until the
   * next ply, a new offer or the end (SEAT_UNSPECIFIED otherwise): the
   * match itself only drops the offer, and the offerer is told who
   * declined it. A snapshot of the same position (a reconnect) keeps it.
   */
  drawDeclinedBy: Seat = Seat.UNSPECIFIED;
  /** declinedAtPly is the number of plies when drawDeclinedBy was set. */
  declinedAtPly = -1;

  constructor(lastSeq = 0n) {
    this.lastSeq = lastSeq;
  }

  /**
   * mayOfferDraw reports whether seat may offer a draw now: not while the
   * offer it just made stands declined (until the next ply), so that a
   * refusal is not answered by the same offer at once.
   */
  mayOfferDraw(seat: Seat): boolean {
    const declined = this.drawDeclinedBy;
    return declined === Seat.UNSPECIFIED || declined === seat;
  }

  apply(msg: StreamMessage): ApplyResult {
    switch (msg.case) {
      case "snapshot":
        this.previous = undefined;
        if (msg.value.plies.length !== this.declinedAtPly || msg.value.drawOfferedBy !== Seat.UNSPECIFIED || msg.value.status === MatchStatus.FINISHED) {
          this.drawDeclinedBy = Seat.UNSPECIFIED;
        }
        this.match = msg.value;
        this.lastSeq = msg.value.lastSeq;
        return "applied";
      case "event": {
        const ev = msg.value;
        if (!this.match) return "gap"; // events without a base: ask again
        if (ev.seq <= this.lastSeq) return "duplicate";
        if (ev.seq !== this.lastSeq + 1n) return "gap";
        applyEvent(this, ev);
        this.lastSeq = ev.seq;
        this.match.lastSeq = ev.seq;
        return "applied";
      }
      case "drain":
        return "drain";
      default:
        return "ignored";
    }
  }
}

function applyEvent(feed: MatchFeed, ev: MatchEvent): void {
  const m = feed.match!;
  const k = ev.kind;
  switch (k.case) {
    case "plyPlayed": {
      const p = k.value;
      feed.previous = clone(MatchSchema, m);
      if (p.ply && !m.plies.some((q) => q.number === p.ply!.number)) m.plies.push(p.ply);
      if (p.clocks) m.clocks = p.clocks;
      if (p.view) m.view = p.view;
      if (m.status === MatchStatus.WAITING) m.status = MatchStatus.IN_PROGRESS;
      // An offer lapses when the other seat plays a ply.
      if (p.ply && m.drawOfferedBy !== Seat.UNSPECIFIED && m.drawOfferedBy !== p.ply.seat) {
        m.drawOfferedBy = Seat.UNSPECIFIED;
      }
      if (p.ply) feed.drawDeclinedBy = Seat.UNSPECIFIED;
      break;
    }
    case "drawOffered":
      m.drawOfferedBy = k.value.by;
      feed.drawDeclinedBy = Seat.UNSPECIFIED;
      break;
    case "drawDeclined":
      m.drawOfferedBy = Seat.UNSPECIFIED;
      feed.drawDeclinedBy = k.value.by;
      feed.declinedAtPly = m.plies.length;
      break;
    case "playerDisconnected": {
      const s = m.seats.find((x) => x.participant?.seat === k.value.seat);
      if (s) {
        s.connection = ConnectionState.DISCONNECTED;
        s.reconnectDeadline = k.value.reconnectDeadline;
      }
      break;
    }
    case "playerReconnected": {
      const s = m.seats.find((x) => x.participant?.seat === k.value.seat);
      if (s) {
        s.connection = ConnectionState.CONNECTED;
        s.reconnectDeadline = undefined;
      }
      break;
    }
    case "gameEnded": {
      const g = k.value;
      m.status = MatchStatus.FINISHED;
      m.outcome = g.outcome;
      if (g.clocks) m.clocks = g.clocks;
      if (g.view) m.view = g.view;
      m.seed = g.seed;
      m.layout = g.layout;
      m.drawOfferedBy = Seat.UNSPECIFIED;
      feed.drawDeclinedBy = Seat.UNSPECIFIED;
      m.endedAt = ev.at;
      break;
    }
    default:
      break;
  }
}

/** clockSnapshot turns a match's clocks into plain numbers; undefined without a clock. */
export function clockSnapshot(m: Match | undefined): ClockSnapshot | undefined {
  const c = m?.clocks;
  if (!c) return undefined;
  return {
    firstMs: Number(c.firstRemainingMs),
    secondMs: Number(c.secondRemainingMs),
    running: c.running,
    asOfMs: c.asOf ? timestampMs(c.asOf) : 0,
  };
}

/** serverTimes are the server timestamps a message carries, to estimate the server's clock. */
export function serverTimes(msg: StreamMessage): number[] {
  const out: number[] = [];
  if (msg.case === "event") {
    if (msg.value.at) out.push(timestampMs(msg.value.at));
  } else if (msg.case === "snapshot") {
    if (msg.value.clocks?.asOf) out.push(timestampMs(msg.value.clocks.asOf));
  } else if (msg.case === "heartbeat") {
    if (msg.value.serverTime) out.push(timestampMs(msg.value.serverTime));
  }
  return out;
}

/** Whether an error ends following for good (retrying cannot help). */
export function fatal(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return false;
  return [Code.NotFound, Code.PermissionDenied, Code.Unauthenticated, Code.InvalidArgument, Code.Aborted, Code.Unimplemented].includes(err.code);
}

/** backoffMs is the wait before reconnect attempt n (0-based): 0.25 s doubling to 4 s. */
export function backoffMs(attempt: number): number {
  return Math.min(4000, 250 * 2 ** attempt);
}

export type FeedStatus = "connecting" | "live" | "reconnecting" | "ended" | "failed";

/**
 * bannerOnly reports whether the game page shows its banner alone: following
 * failed before any state of the match came, so there are no seats, board
 * or moves to show (only empty cards).
 */
export function bannerOnly(s: FeedStatus, hasMatch: boolean): boolean {
  return s === "failed" && !hasMatch;
}

export interface FeedLoopOptions {
  /** open starts a stream from lastSeq (Follow or Watch). */
  open: (lastSeq: bigint, signal: AbortSignal) => AsyncIterable<{ message: StreamMessage }>;
  /** onUpdate runs after every applied message. */
  onUpdate: (feed: MatchFeed, msg: StreamMessage) => void;
  onStatus: (s: FeedStatus, err?: unknown) => void;
  /**
   * onProbe answers a lag probe of a Follow stream (AnswerProbe), at once:
   * the server measures the seat's round trip by it, to credit its plies'
   * transit time to its clock.
   */
  onProbe?: (id: bigint) => void;
  /** onServerTime receives server timestamps with their local receipt time. */
  onServerTime?: (serverMs: number, localMs: number) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** settleMs is how long a quiet stream must stay open to count as live (default 1.5 s). */
  settleMs?: number;
  /**
   * idleMs, when set, is how long a stream may stay silent before it is
   * taken for dead and reopened (Follow sends a heartbeat every 15 s, so a
   * longer silence means a network that dropped without telling).
   */
  idleMs?: number;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * FeedLoop keeps one stream open until the game ends (the server closes
 * the stream with OK after game_ended), the error is fatal, or stop() is
 * called. Every reconnect passes the last seq seen.
 */
export class FeedLoop {
  readonly feed: MatchFeed;
  private readonly ctl = new AbortController();
  private attempt = 0;
  done: Promise<void>;

  constructor(private readonly o: FeedLoopOptions, lastSeq = 0n) {
    this.feed = new MatchFeed(lastSeq);
    this.done = this.run();
  }

  stop(): void {
    this.ctl.abort();
  }

  get stopped(): boolean {
    return this.ctl.signal.aborted;
  }

  private finished(): boolean {
    return this.feed.match?.status === MatchStatus.FINISHED;
  }

  private async run(): Promise<void> {
    const sleep = this.o.sleep ?? defaultSleep;
    this.o.onStatus("connecting");
    while (!this.stopped) {
      const inner = new AbortController();
      const onAbort = () => inner.abort();
      this.ctl.signal.addEventListener("abort", onAbort);
      let reopen = false;
      // A reopened stream that is up to date may send nothing at first: it
      // counts as live once it has stayed open a moment without failing.
      const settle = setTimeout(() => {
        if (!inner.signal.aborted) {
          this.attempt = 0;
          this.o.onStatus("live");
        }
      }, this.o.settleMs ?? 1500);
      let idle: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        if (!this.o.idleMs) return;
        if (idle) clearTimeout(idle);
        idle = setTimeout(() => inner.abort(), this.o.idleMs);
      };
      arm();
      try {
        for await (const res of this.o.open(this.feed.lastSeq, inner.signal)) {
          arm();
          const msg = res.message;
          if (msg.case === "probe") {
            this.o.onProbe?.(msg.value.id);
            continue;
          }
          const local = Date.now();
          for (const t of serverTimes(msg)) this.o.onServerTime?.(t, local);
          const r = this.feed.apply(msg);
          if (r === "applied") {
            if (this.attempt > 0 || msg.case === "snapshot") this.o.onStatus("live");
            this.attempt = 0;
            this.o.onUpdate(this.feed, msg);
          } else if (msg.case === "heartbeat" && this.attempt > 0) {
            this.attempt = 0;
            this.o.onStatus("live");
          } else if (r === "gap" || r === "drain") {
            reopen = true;
            inner.abort();
            break;
          }
        }
        if (!reopen) {
          if (this.finished() || this.stopped) {
            this.o.onStatus("ended");
            return;
          }
          // The stream ended cleanly before the game did: reopen.
        }
      } catch (err) {
        if (this.stopped) return;
        if (fatal(err)) {
          this.o.onStatus("failed", err);
          return;
        }
        if (this.finished()) {
          this.o.onStatus("ended");
          return;
        }
      } finally {
        clearTimeout(settle);
        if (idle) clearTimeout(idle);
        inner.abort();
        this.ctl.signal.removeEventListener("abort", onAbort);
      }
      if (this.stopped) return;
      this.o.onStatus("reconnecting");
      await sleep(reopen ? 0 : backoffMs(this.attempt++), this.ctl.signal);
    }
  }
}
