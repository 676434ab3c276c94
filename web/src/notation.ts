// Plies in RULES.md notation as the client reads them: what a ply moved
// (to mark the last ply), the move list's rows, and the names shown for
// games, variants, levels, pieces and outcomes.
import { BanqiPiece, BotLevel, Game, Reason, Result, Seat, type BotRating, type Outcome, type Variant } from "./gen/tabuleiro/game/v1/game_pb";
import { parseSquare, parseWall, type Square, type Wall } from "./geometry";
import { has, num, t } from "./i18n";

/** PlyShape is what a ply did on the board, read from its notation. */
export type PlyShape =
  | { kind: "wall"; wall: Wall }
  | { kind: "move"; path: Square[]; capture: boolean }
  | { kind: "reveal"; at: Square }
  | { kind: "pawn"; to: Square };

/**
 * plyShape reads a ply's canonical notation for a game: a Quoridor pawn
 * move ("e2") or wall ("e3h") (Q1); a Corners path ("c3-e3-e5") (C1); a
 * Banqi reveal ("c2"), step ("c2-c3") or capture ("c2xc3") (B1).
 */
export function plyShape(game: Game, notation: string): PlyShape | undefined {
  if (game === Game.QUORIDOR) {
    const w = parseWall(notation);
    if (w) return { kind: "wall", wall: w };
    const to = parseSquare(notation);
    return to ? { kind: "pawn", to } : undefined;
  }
  const capture = notation.includes("x");
  const parts = notation.split(/[-x]/);
  const path: Square[] = [];
  for (const p of parts) {
    const sq = parseSquare(p);
    if (!sq) return undefined;
    path.push(sq);
  }
  if (path.length === 1) {
    return game === Game.BANQI ? { kind: "reveal", at: path[0] } : undefined;
  }
  return { kind: "move", path, capture };
}

/** MoveRow is one row of the move list: a move number and up to two plies. */
export interface MoveRow {
  number: number;
  first?: { ply: number; text: string };
  second?: { ply: number; text: string };
}

/**
 * moveRows groups plies into numbered moves, a first-seat ply and the
 * second-seat ply after it (a move number is (ply + 1) / 2).
 */
export function moveRows(plies: { number: number; notation: string }[]): MoveRow[] {
  const rows: MoveRow[] = [];
  for (const p of plies) {
    const n = Math.floor((p.number + 1) / 2);
    let row = rows[rows.length - 1];
    if (!row || row.number !== n) {
      row = { number: n };
      rows.push(row);
    }
    if (p.number % 2 === 1) row.first = { ply: p.number, text: p.notation };
    else row.second = { ply: p.number, text: p.notation };
  }
  return rows;
}

export const gameNames: Record<number, string> = {
  [Game.QUORIDOR]: "Quoridor",
  [Game.CORNERS]: "Corners",
  [Game.BANQI]: "Banqi",
};

export function gameName(g: Game): string {
  return gameNames[g] ?? t("game.unknown");
}

export const games = [Game.QUORIDOR, Game.CORNERS, Game.BANQI];

/**
 * variantName is a variant's name in the player's language ("variant.<game>.<id>"
 * in the catalogs), else the name the server gave, else its id.
 */
export function variantName(g: Game, id: string, fallback = id): string {
  const key = `variant.${(gameNames[g] ?? "").toLowerCase()}.${id}`;
  return has(key) ? t(key) : fallback;
}

export const levels = [BotLevel.EASY, BotLevel.MEDIUM, BotLevel.HARD, BotLevel.EXPERT];

type Named = { displayName: string; botLevel?: BotLevel };

/** DELETED_NAME is what the lobby puts in place of a deleted account's name (lobby.DeletedName). */
export const DELETED_NAME = "deleted player";

/**
 * playerName is a participant's name as the page shows it: a bot's in the
 * player's language ("Robô (fácil)"), a deleted account's too, anyone
 * else's as they chose it.
 */
export function playerName(p: Named): string;
export function playerName(p: Named | undefined): string | undefined;
export function playerName(p: Named | undefined): string | undefined {
  if (!p) return undefined;
  if (p.botLevel) return t("bot.name", { level: levelName(p.botLevel).toLowerCase() });
  return p.displayName === DELETED_NAME ? t("player.deleted") : p.displayName;
}

/** levelId is a level's stable name for the page's data attributes (data-level="Easy"), in no language. */
export function levelId(l: BotLevel): string {
  return ({ [BotLevel.EASY]: "Easy", [BotLevel.MEDIUM]: "Medium", [BotLevel.HARD]: "Hard", [BotLevel.EXPERT]: "Expert" } as Record<number, string>)[l] ?? "";
}

export function levelName(l: BotLevel): string {
  switch (l) {
    case BotLevel.EASY:
      return t("level.easy");
    case BotLevel.MEDIUM:
      return t("level.medium");
    case BotLevel.HARD:
      return t("level.hard");
    case BotLevel.EXPERT:
      return t("level.expert");
    default:
      return "—";
  }
}

/**
 * levelRating is a bot level's ladder rating in a variant (game.v1
 * BotRating: Elo scale, easy = 0), or undefined when the variant's ladder
 * was not measured.
 */
export function levelRating(v: Variant | undefined, l: BotLevel): BotRating | undefined {
  return v?.botRatings.find((r) => r.level === l);
}

/** levelLabel is a level's name with its ladder rating when measured: "Hard · rating 663". */
export function levelLabel(l: BotLevel, r?: BotRating): string {
  return r ? t("level.label", { level: levelName(l), rating: num(r.rating) }) : levelName(l);
}

/** levelTitle says what a level's rating is, for its tooltip; "" without one. */
export function levelTitle(r?: BotRating): string {
  if (!r) return "";
  if (r.ratingLow === r.rating && r.ratingHigh === r.rating) return t("level.rating");
  const n = (x: number) => (x < 0 ? `−${num(-x)}` : num(x));
  const span = r.ratingLow < 0 ? t("level.span", { low: n(r.ratingLow), high: n(r.ratingHigh) }) : `${num(r.ratingLow)}–${num(r.ratingHigh)}`;
  return t("level.interval", { span });
}

/** seatColour is the colour word a seat plays in Quoridor and Corners. */
export function seatColour(s: Seat): string {
  return s === Seat.FIRST ? t("colour.white") : s === Seat.SECOND ? t("colour.black") : "";
}

export function otherSeat(s: Seat): Seat {
  return s === Seat.FIRST ? Seat.SECOND : s === Seat.SECOND ? Seat.FIRST : Seat.UNSPECIFIED;
}

/** reasonKeys are the catalog keys of the ways a game ends. */
const reasonKeys: Record<number, string> = {
  [Reason.GOAL]: "reason.goal",
  [Reason.PLY_LIMIT]: "reason.plyLimit",
  [Reason.MOVE_LIMIT]: "reason.moveLimit",
  [Reason.DEADLINE]: "reason.deadline",
  [Reason.RETURN_HOME]: "reason.returnHome",
  [Reason.REPETITION]: "reason.repetition",
  [Reason.NO_LEGAL_MOVE]: "reason.noLegalMove",
  [Reason.NO_PIECES]: "reason.noPieces",
  [Reason.RESIGNATION]: "reason.resignation",
  [Reason.TIME]: "reason.time",
  [Reason.ABANDONMENT]: "reason.abandonment",
  [Reason.AGREEMENT]: "reason.agreement",
  [Reason.ABORTED]: "reason.aborted",
  [Reason.COMPLETED]: "reason.completed",
};

export function reasonName(r: Reason): string {
  const k = reasonKeys[r];
  return k ? t(k) : "";
}

/** outcomeClass is a finished game's class from a seat's side: won, lost or drawn. */
export function outcomeClass(o: Outcome | undefined, you: Seat): "won" | "lost" | "drawn" {
  if (!o || o.result !== Result.WIN || you === Seat.UNSPECIFIED || o.reason === Reason.ABORTED || o.reason === Reason.COMPLETED) return "drawn";
  return o.winner === you ? "won" : "lost";
}

/**
 * outcomeTitle says how a game ended from one seat's point of view ("You
 * won"), or neutrally with the seats' names for a spectator.
 */
export function outcomeTitle(o: Outcome | undefined, you: Seat, names: [string, string]): string {
  if (!o || o.result === Result.ONGOING || o.result === Result.UNSPECIFIED) return t("title.ongoing");
  if (o.reason === Reason.ABORTED) return t("title.aborted");
  if (o.reason === Reason.COMPLETED) return t("title.completed");
  if (o.result === Result.DRAW) return t("title.draw");
  if (you !== Seat.UNSPECIFIED) return o.winner === you ? t("title.won") : t("title.lost");
  return t("title.named", { name: o.winner === Seat.FIRST ? names[0] : names[1] });
}

/**
 * outcomeLine says in a sentence why a game ended, from one seat's point
 * of view (you: "You ran out of time.", "Your opponent reached the goal
 * row.") or a spectator's (Seat.UNSPECIFIED: the seats' names). solo is a
 * one-player training game (Corners training, C2); plies, when known, is
 * how many it had (an aborted training says why by it). Empty while the game goes on.
 */
export function outcomeLine(o: Outcome | undefined, game: Game, you: Seat, names: [string, string], solo = false, plies = -1): string {
  if (!o || o.result === Result.ONGOING || o.result === Result.UNSPECIFIED) return "";
  const seated = you === Seat.FIRST || you === Seat.SECOND;
  // A seat's name in a spectator's sentence: the player's, else the seat's.
  const name = (s: Seat): string => {
    const n = names[s === Seat.FIRST ? 0 : 1];
    if (n) return n;
    if (game === Game.BANQI) return s === Seat.FIRST ? t("seat.firstPlayer") : t("seat.secondPlayer");
    return seatColour(s);
  };
  // Each sentence has three forms, by whom it is about: the reader
  // (".you"), the reader's opponent (".opp"), or a named seat (".name",
  // with {name} and the other seat's {other}), for a spectator.
  const about = (key: string, s: Seat, params: Record<string, string> = {}): string => {
    const text = seated ? t(`${key}.${s === you ? "you" : "opp"}`, params) : t(`${key}.name`, { name: name(s), other: name(otherSeat(s)), ...params });
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  if (o.reason === Reason.ABORTED && solo) {
    // A training game says why it ended when its plies are known (plies >= 0).
    if (plies === 0) return t("outcome.aborted.solo.noMove");
    if (plies > 0) return t("outcome.aborted.solo.stopped", { count: plies });
    return t("outcome.aborted.solo");
  }
  if (o.reason === Reason.ABORTED) return t("outcome.aborted");
  if (o.reason === Reason.COMPLETED) return about("outcome.completed", Seat.FIRST);
  if (o.result === Result.DRAW) {
    switch (o.reason) {
      case Reason.PLY_LIMIT:
        return game === Game.BANQI ? t("outcome.draw.plyLimit.banqi") : t("outcome.draw.plyLimit");
      case Reason.GOAL:
        return t("outcome.draw.goal");
      case Reason.MOVE_LIMIT:
        return solo ? t("outcome.draw.moveLimit.solo") : t("outcome.draw.moveLimit");
      case Reason.DEADLINE:
        return t("outcome.draw.deadline");
      case Reason.REPETITION:
        return t("outcome.draw.repetition");
      case Reason.NO_LEGAL_MOVE:
        return t("outcome.draw.noLegalMove");
      case Reason.AGREEMENT:
        return seated ? t("outcome.draw.agreement.you") : t("outcome.draw.agreement.name", { first: name(Seat.FIRST), second: name(Seat.SECOND) });
    }
    const r = reasonName(o.reason);
    return r ? t("outcome.draw.other", { reason: r }) : "";
  }
  const w = o.winner;
  const l = otherSeat(w);
  switch (o.reason) {
    case Reason.GOAL:
      return game === Game.CORNERS ? about("outcome.goal.corners", w) : about("outcome.goal", w);
    case Reason.MOVE_LIMIT:
      return about("outcome.moveLimit", w);
    case Reason.DEADLINE:
      return about("outcome.deadline", l);
    case Reason.RETURN_HOME:
      return about("outcome.returnHome", l);
    case Reason.NO_LEGAL_MOVE:
      return about("outcome.noLegalMove", l);
    case Reason.NO_PIECES:
      return about("outcome.noPieces", l);
    case Reason.RESIGNATION:
      return about("outcome.resignation", l);
    case Reason.TIME:
      return about("outcome.time", l);
    case Reason.ABANDONMENT:
      return about("outcome.abandonment", l);
  }
  const r = reasonName(o.reason);
  return r ? about("outcome.won", w, { reason: r }) : "";
}

/** Banqi piece kinds by rank, high to low (B4.1), with the letters of B1. */
const banqiKinds = [
  { name: "general", letter: "K", red: "帥", black: "將" },
  { name: "advisor", letter: "A", red: "仕", black: "士" },
  { name: "elephant", letter: "B", red: "相", black: "象" },
  { name: "chariot", letter: "R", red: "俥", black: "車" },
  { name: "horse", letter: "N", red: "傌", black: "馬" },
  { name: "cannon", letter: "C", red: "炮", black: "包" },
  { name: "soldier", letter: "P", red: "兵", black: "卒" },
];

/** banqiLetters are the kinds' letters (B1) with their names in the player's language, high to low: K general … P soldier. */
export function banqiLetters(): { letter: string; name: string }[] {
  return banqiKinds.map((k) => ({ letter: k.letter, name: t(`piece.kind.${k.name}`) }));
}

/** BanqiInfo is how a revealed piece is drawn and named. */
export interface BanqiInfo {
  red: boolean;
  glyph: string;
  letter: string;
  name: string;
  rank: number; // 0 general … 6 soldier
}

export function banqiInfo(p: BanqiPiece): BanqiInfo | undefined {
  if (p < BanqiPiece.RED_GENERAL || p > BanqiPiece.BLACK_SOLDIER) return undefined;
  const red = p <= BanqiPiece.RED_SOLDIER;
  const rank = red ? p - BanqiPiece.RED_GENERAL : p - BanqiPiece.BLACK_GENERAL;
  const k = banqiKinds[rank];
  return {
    red,
    glyph: red ? k.red : k.black,
    letter: red ? k.letter : k.letter.toLowerCase(),
    name: t(`piece.${red ? "red" : "black"}.${k.name}`),
    rank,
  };
}

/** banqiFromLetter reads a layout letter (B1): "K" red general, "p" black soldier. */
export function banqiFromLetter(ch: string): BanqiPiece {
  const i = banqiKinds.findIndex((k) => k.letter === ch.toUpperCase());
  if (i < 0) return BanqiPiece.UNSPECIFIED;
  return (ch === ch.toUpperCase() ? BanqiPiece.RED_GENERAL : BanqiPiece.BLACK_GENERAL) + i;
}

/** timeControlText writes a clock as players do: "3+2" (minutes + seconds), "No clock". */
export function timeControlText(tc: { baseMs: bigint; incrementMs: bigint } | undefined): string {
  if (!tc) return t("clock.none");
  const base = Number(tc.baseMs) / 60000;
  const inc = Number(tc.incrementMs) / 1000;
  const b = Number.isInteger(base) ? String(base) : base.toFixed(1);
  return `${b}+${Number.isInteger(inc) ? inc : inc.toFixed(1)}`;
}

/**
 * refusalText says why a ply was refused once, after what was tried
 * ("Wall e3h"): the server's reason may repeat the ply first
 * ("illegal ply e3h: …", 'ply "e3h": …'), which is dropped, as the
 * terminal does.
 */
export function refusalText(what: string, reason: string, you: Seat = Seat.UNSPECIFIED): string {
  const r = yourPawn(reason.replace(/^(illegal ply [^ :]*: |ply "[^"]*": )/, "").replace(/^invalid argument: /, ""), you);
  return what ? t("refusal", { what, reason: r }) : r;
}

/**
 * yourPawn says "your pawn" for the viewer's own Quoridor pawn in a reason
 * the engine words for everyone ("the wall would leave white's pawn on e1
 * no path to rank 9"): that text is shared (spectators, the server's logs,
 * the terminal), so only the display changes it. you is the seat whose
 * player reads it (UNSPECIFIED: nobody's, the reason as it is).
 */
export function yourPawn(reason: string, you: Seat): string {
  const colour = you === Seat.FIRST ? "white" : you === Seat.SECOND ? "black" : "";
  return colour ? reason.replace(new RegExp(`\\b${colour}'s pawn\\b`, "gi"), "your pawn") : reason;
}

/** ratingRow is a rating of the stats page as its table shows it: game, variant (by name, never by id), rating, deviation, games. */
export function ratingRow(x: { game: Game; variant: string; rating: number; deviation: number; games: number }): string[] {
  return [gameName(x.game), variantName(x.game, x.variant), num(Math.round(x.rating)), num(Math.round(x.deviation)), num(x.games)];
}
