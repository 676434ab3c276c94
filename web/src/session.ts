// What the browser keeps between visits, in localStorage: the guest's
// identity (token, player id, name), the second player of a game at one
// keyboard, and the game being played with the last event seq seen, so
// that a reload or a lost network comes back to the same game.

export interface Identity {
  token: string;
  playerId: string;
  name: string;
  /** expiresAt is the token's expiry, milliseconds since the epoch. */
  expiresAt: number;
  /**
   * refreshToken gets the next token (RefreshToken), once: the one each
   * refresh returns replaces it. Absent for an identity kept before refresh
   * tokens (its token is then exchanged, once).
   */
  refreshToken?: string;
  /** username is the account's username; absent for a guest. */
  username?: string;
}

/** CurrentGame is the game this browser plays, to resume it. */
export interface CurrentGame {
  matchId: string;
  /** lastSeq is the last event seq applied (a decimal string: int64). */
  lastSeq: string;
  /** local is set for a game at one keyboard: both seats are played here. */
  local?: boolean;
}

/** Store is the part of the Storage API the client uses (tests pass a Map-backed one). */
export interface Store {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const KEY_ME = "tabuleiro.identity";
const KEY_PARTNER = "tabuleiro.partner";
const KEY_GAME = "tabuleiro.game";
const KEY_ENDED = "tabuleiro.ended";

/**
 * EndedGame is the game that last ended in this browser, and when
 * (milliseconds since the epoch): its record reaches the history a moment
 * after it ends, and the History screen waits for it.
 */
export interface EndedGame {
  matchId: string;
  at: number;
}

function read<T>(s: Store, key: string, valid: (v: any) => boolean): T | undefined {
  const raw = s.getItem(key);
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw);
    return valid(v) ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}

const validIdentity = (v: any) =>
  v && typeof v.token === "string" && v.token && typeof v.playerId === "string" && typeof v.name === "string" && typeof v.expiresAt === "number";

export class Session {
  constructor(private readonly s: Store) {}

  get me(): Identity | undefined {
    return read<Identity>(this.s, KEY_ME, validIdentity);
  }
  set me(v: Identity | undefined) {
    if (v) this.s.setItem(KEY_ME, JSON.stringify(v));
    else this.s.removeItem(KEY_ME);
  }

  /** partner is the second player of games at one keyboard. */
  get partner(): Identity | undefined {
    return read<Identity>(this.s, KEY_PARTNER, validIdentity);
  }
  set partner(v: Identity | undefined) {
    if (v) this.s.setItem(KEY_PARTNER, JSON.stringify(v));
    else this.s.removeItem(KEY_PARTNER);
  }

  get game(): CurrentGame | undefined {
    return read<CurrentGame>(this.s, KEY_GAME, (v) => v && typeof v.matchId === "string" && /^\d+$/.test(v.lastSeq));
  }
  set game(v: CurrentGame | undefined) {
    if (v) this.s.setItem(KEY_GAME, JSON.stringify(v));
    else this.s.removeItem(KEY_GAME);
  }

  get ended(): EndedGame | undefined {
    return read<EndedGame>(this.s, KEY_ENDED, (v) => v && typeof v.matchId === "string" && typeof v.at === "number");
  }
  set ended(v: EndedGame | undefined) {
    if (v) this.s.setItem(KEY_ENDED, JSON.stringify(v));
    else this.s.removeItem(KEY_ENDED);
  }

  /** saveSeq records the last seq seen of the current game (only ever forward). */
  saveSeq(matchId: string, seq: bigint): void {
    const g = this.game;
    if (!g || g.matchId !== matchId) return;
    if (BigInt(g.lastSeq) >= seq) return;
    this.game = { ...g, lastSeq: seq.toString() };
  }

  signOut(): void {
    this.me = undefined;
    this.partner = undefined;
    this.game = undefined;
    this.ended = undefined;
  }
}

/**
 * awaitingEnded reports whether a history list that holds the games
 * listed still lacks the game that ended here (ended), less than waitMs
 * before nowMs: its record is written a moment after the end.
 */
export function awaitingEnded(ended: EndedGame | undefined, listed: readonly string[], nowMs: number, waitMs: number): boolean {
  return !!ended && nowMs - ended.at < waitMs && !listed.includes(ended.matchId);
}

/** needsRefresh reports whether a token should be refreshed now (within an hour of expiry, or past it). */
export function needsRefresh(id: Identity, nowMs: number): boolean {
  return id.expiresAt - nowMs < 3600_000;
}

/** refreshRequest is the RefreshToken request for id: its refresh token, or the token of an identity kept before refresh tokens. */
export function refreshRequest(id: Identity): { refreshToken: string } | { token: string } {
  return id.refreshToken ? { refreshToken: id.refreshToken } : { token: id.token };
}

/** rotated is id after a refresh: the new token, and the new refresh token in place of the spent one. */
export function rotated(id: Identity, r: { token: string; refreshToken: string }, expiresAt: number): Identity {
  return { ...id, token: r.token, expiresAt, refreshToken: r.refreshToken };
}

/**
 * exclusive runs f while holding the browser-wide lock name (Web Locks, shared
 * by every tab), so that two tabs never exchange the same refresh token; without
 * Web Locks it just runs f.
 */
export async function exclusive<T>(name: string, f: () => Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: { request(n: string, f: () => Promise<T>): Promise<T> } } }).navigator?.locks;
  return locks ? locks.request(name, f) : f();
}

/** memoryStore is a Store kept in a Map (tests, or a browser without localStorage). */
export function memoryStore(): Store {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
  };
}
