// Clocks that tick locally and resynchronise from the server. The server
// sends ClockState {remaining per seat, running seat, as_of}; the running
// clock shows remaining - (server now - as_of), never below zero (game.v1
// ClockState). The client does not know the server's time: it estimates
// the offset server - local from every server timestamp it receives (a
// timestamp is never later than the server's time at receipt, so
// timestamp - local receipt time is a lower bound of the offset; the
// largest recent bound is the best). The server alone decides when a
// flag falls.
import { Seat } from "./gen/tabuleiro/game/v1/game_pb";
import { current, num, t } from "./i18n";

/** ClockSnapshot is a ClockState in plain numbers (milliseconds since the epoch). */
export interface ClockSnapshot {
  firstMs: number;
  secondMs: number;
  running: Seat;
  asOfMs: number;
}

/** ServerClock estimates the server's time from the timestamps it sends. */
export class ServerClock {
  private bounds: number[] = [];
  constructor(private readonly keep = 16) {}

  /** observe records a server timestamp received at local time localMs. */
  observe(serverMs: number, localMs: number): void {
    this.bounds.push(serverMs - localMs);
    if (this.bounds.length > this.keep) this.bounds.shift();
  }

  /** offset is the estimate of server time - local time (0 before any observation). */
  get offset(): number {
    return this.bounds.length ? Math.max(...this.bounds) : 0;
  }

  now(localMs: number): number {
    return localMs + this.offset;
  }
}

/** remainingMs is a seat's time left at local time localMs. */
export function remainingMs(c: ClockSnapshot, seat: Seat, localMs: number, server: ServerClock): number {
  const base = seat === Seat.FIRST ? c.firstMs : c.secondMs;
  if (c.running !== seat) return Math.max(0, base);
  const elapsed = Math.max(0, server.now(localMs) - c.asOfMs);
  return Math.max(0, base - elapsed);
}

/**
 * formatClock writes a clock as game sites do: "1:02:03" from an hour,
 * "4:05" from 20 s, then tenths: "19.4" (the last seconds matter).
 */
export function formatClock(ms: number): string {
  const left = Math.max(0, ms);
  if (left < 20000) {
    const tenths = Math.floor(left / 100);
    // The decimal sign is the player's language's ("19,4" in Portuguese).
    return num(tenths / 10, current(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  }
  const s = Math.floor(left / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** lowTime reports whether a clock should be drawn as running low. */
export function lowTime(ms: number, baseMs: number): boolean {
  return ms < Math.min(20000, baseMs / 10 + 5000);
}

/** LONG_ABSENCE_MS is the return window from which an absent player is "away", not "disconnected": a game without a clock keeps a seat for days. */
export const LONG_ABSENCE_MS = 3_600_000;

/**
 * returnText is the time an absent player has left to come back, in the
 * largest unit that reads well: "42 s", "9 min", "5 h", "30 days".
 */
export function returnText(ms: number): string {
  const left = Math.max(0, ms);
  if (left < 60_000) return t("seconds", { count: Math.ceil(left / 1000) });
  if (left < 3_600_000) return t("minutes", { count: Math.ceil(left / 60_000) });
  if (left < 48 * 3_600_000) return t("hours", { count: Math.ceil(left / 3_600_000) });
  return t("days", { count: Math.ceil(left / 86_400_000) });
}
