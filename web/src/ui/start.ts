// Starting a game from a choice of the Play screen (or a finished game's
// origin, for a rematch): against a bot, at one keyboard, a friend's room
// or the rated queue; and where a game came from, kept for its rematch.
import { api, errorText, ConnectError } from "../api";
import { BotLevel, Game, Seat, type Variant } from "../gen/tabuleiro/game/v1/game_pb";
import { RoomVisibility, type MatchSummary } from "../gen/tabuleiro/lobby/v1/lobby_pb";
import { gameName, playerName, variantName } from "../notation";
import type { Identity } from "../session";
import { alreadyPlaying, busyMatch } from "../messages";
import { h, toast } from "./dom";
import { t } from "../i18n";
import { go, partner, session } from "./shell";

/** Origin is how a game was started, to offer the same again (rematch). */
export interface Origin {
  game: Game;
  variant: string;
  opponent: "bot" | "local" | "friend" | "queue";
  level: BotLevel;
  seat: Seat;
  clock: number;
  rated: boolean;
}

export const clockChoices: { label: string; base: number; inc: number }[] = [
  { label: "", base: 0, inc: 0 }, // t("clock.none")
  { label: "1+1", base: 60000, inc: 1000 },
  { label: "3+2", base: 180000, inc: 2000 },
  { label: "5+3", base: 300000, inc: 3000 },
  { label: "10+5", base: 600000, inc: 5000 },
  { label: "15+10", base: 900000, inc: 10000 },
];

export type Opponent = "bot" | "local" | "friend" | "queue";

export interface LobbyChoice {
  game: Game;
  variant: string;
  opponent: Opponent;
  level: BotLevel;
  seat: Seat;
  clock: number; // index in clockChoices
  rated: boolean;
  /** room is a room's visibility (opponent "friend"): listed in the lobby for anyone, or private with a password. */
  room?: "public" | "private";
  /** password is a private room's password as typed (never kept); empty to generate one. */
  password?: string;
}

export const CHOICE_KEY = "tabuleiro.lobby";
export function loadChoice(): LobbyChoice {
  const d: LobbyChoice = { game: Game.QUORIDOR, variant: "standard", opponent: "bot", level: BotLevel.EASY, seat: Seat.UNSPECIFIED, clock: 0, rated: false };
  try {
    return { ...d, ...JSON.parse(localStorage.getItem(CHOICE_KEY) ?? "{}") };
  } catch {
    return d;
  }
}

export function variantClockIndex(v: Variant | undefined): number {
  const tc = v?.defaultTimeControl;
  if (!tc) return 2;
  const i = clockChoices.findIndex((k) => BigInt(k.base) === tc.baseMs && BigInt(k.inc) === tc.incrementMs);
  return i > 0 ? i : 2;
}

export function tcOf(i: number) {
  const k = clockChoices[i];
  return k && k.base ? { baseMs: BigInt(k.base), incrementMs: BigInt(k.inc) } : undefined;
}

export async function start(id: Identity, c: LobbyChoice | Origin): Promise<void> {
  const btn = document.getElementById("start") as HTMLButtonElement | null;
  if (btn) btn.disabled = true;
  try {
    const tc = tcOf(c.clock);
    const origin: Origin = { game: c.game, variant: c.variant, opponent: c.opponent, level: c.level, seat: c.seat, clock: c.clock, rated: c.rated };
    switch (c.opponent) {
      case "bot": {
        const r = await api(id.token).lobby.playBot({ game: c.game, variant: c.variant, level: c.level, seat: c.seat, timeControl: tc });
        session.game = { matchId: r.matchId, lastSeq: "0" };
        saveOrigin(r.matchId, origin);
        go(`#/game/${r.matchId}`);
        return;
      }
      case "local": {
        const second = await partner();
        const password = randomPassword();
        // The host alternates seats with every local game (Q5).
        const n = Number(localStorage.getItem("tabuleiro.localGames") ?? "0");
        localStorage.setItem("tabuleiro.localGames", String(n + 1));
        const room = await api(id.token).lobby.createRoom({
          game: c.game, variant: c.variant, timeControl: tc, visibility: RoomVisibility.PRIVATE, password,
          hostSeat: n % 2 === 0 ? Seat.FIRST : Seat.SECOND,
          // Nobody waits on anyone at one device: without a clock the game
          // waits for its first ply as a game against a bot does.
          oneDevice: true,
        });
        const j = await api(second.token).lobby.joinRoom({
          target: { case: "inviteCode", value: room.room!.inviteCode }, password, oneDevice: true,
        });
        const matchId = j.room?.matchId;
        if (!matchId) throw new Error(t("room.noGame"));
        session.game = { matchId, lastSeq: "0", local: true };
        saveOrigin(matchId, origin);
        go(`#/local/${matchId}`);
        return;
      }
      case "friend": {
        // A public room is listed in the lobby for anyone to join; a
        // private one takes the password typed, or a generated one.
        const pub = "room" in c && c.room === "public";
        const typed = pub || !("password" in c) ? "" : (c.password?.trim() ?? "");
        if (typed && ([...typed].length < 4 || [...typed].length > 64)) {
          // The lobby refuses it (INVALID_REQUEST): say why beside the field.
          roomPasswordNote(t("lobby.room.passwordLength"));
          return;
        }
        const password = pub ? "" : typed || randomPassword();
        const room = await api(id.token).lobby.createRoom({
          game: c.game, variant: c.variant, timeControl: tc, visibility: pub ? RoomVisibility.PUBLIC : RoomVisibility.PRIVATE, password, hostSeat: c.seat,
        });
        sessionStorage.setItem(`tabuleiro.origin.room.${room.room!.roomId}`, JSON.stringify(origin));
        go(`#/room/${room.room!.roomId}${pub ? "" : `?pw=${encodeURIComponent(password)}`}`);
        return;
      }
      case "queue": {
        const q = new URLSearchParams({ game: String(c.game), variant: c.variant, clock: String(c.clock), rated: c.rated ? "1" : "" });
        go(`#/queue?${q}`);
        return;
      }
    }
  } catch (err) {
    if (isBusy(err) && btn?.isConnected) {
      // Already in a live game: say so beside the button, with the way back to it.
      document.getElementById("busy-note")?.remove();
      btn.closest(".actions")?.after(await busyNotice(id));
    } else toast(() => errorText(err), "error");
  } finally {
    if (btn) btn.disabled = false;
  }
}

/** roomPasswordNote says, under the room password field, what is wrong with it, and focuses the field. */
function roomPasswordNote(text: string): void {
  const field = document.getElementById("room-password");
  if (!field) {
    toast(text, "error");
    return;
  }
  let note = document.getElementById("room-password-error");
  if (!note) {
    note = h("p", { class: "error", id: "room-password-error", role: "alert" });
    (field.parentElement ?? field).after(note);
  }
  note.textContent = text;
  field.focus();
}

export function isBusy(err: unknown): boolean {
  return err instanceof ConnectError && busyMatch(err) !== undefined;
}

/**
 * busyNotice tells a player who tries to start a game (or pair) while
 * another is in progress that they have one, with a button back to it.
 */
export async function busyNotice(id: Identity): Promise<HTMLElement> {
  let active: MatchSummary[] = [];
  try {
    active = (await api(id.token).lobby.listActiveMatches({})).matches;
  } catch { /* the lobby's list is the way then */ }
  const m = active[0];
  const g = session.game;
  const href = m ? `#/${g?.matchId === m.matchId && g.local ? "local" : "game"}/${m.matchId}` : "#/play";
  return h("div", { class: "busy-note", id: "busy-note", role: "alert" },
    h("p", {}, alreadyPlaying()),
    m ? h("p", { class: "muted small" }, `${gameName(m.game)} · ${variantName(m.game, m.variant)} · ${m.participants.map((p) => playerName(p)).join(` ${t("vs")} `)}`) : false,
    h("a", { class: "button primary", id: "busy-game", href }, m ? t("busy.back") : t("resume.title")));
}

export function saveOrigin(matchId: string, o: Origin): void {
  localStorage.setItem(`tabuleiro.origin.${matchId}`, JSON.stringify(o));
}

export function loadOrigin(matchId: string): Origin | undefined {
  try {
    const raw = localStorage.getItem(`tabuleiro.origin.${matchId}`);
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

export function randomPassword(): string {
  const a = new Uint8Array(9);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => "abcdefghjkmnpqrstuvwxyz23456789"[b % 31]).join("");
}
