// Plies in RULES.md notation as the client reads them: what a ply moved
// (to mark the last ply), the move list's rows, and the names shown for
// games, variants, levels, pieces and outcomes.
import { BanqiPiece, BotLevel, Game, Reason, Result, Seat, type BotRating, type Outcome, type Variant } from "./gen/tabuleiro/game/v1/game_pb";
import { parseSquare, parseWall, type Square, type Wall } from "./geometry";

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
  return gameNames[g] ?? "Unknown game";
}

export const games = [Game.QUORIDOR, Game.CORNERS, Game.BANQI];

export const levels = [BotLevel.EASY, BotLevel.MEDIUM, BotLevel.HARD, BotLevel.EXPERT];

export function levelName(l: BotLevel): string {
  switch (l) {
    case BotLevel.EASY:
      return "Easy";
    case BotLevel.MEDIUM:
      return "Medium";
    case BotLevel.HARD:
      return "Hard";
    case BotLevel.EXPERT:
      return "Expert";
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

/** levelLabel is a level's name with its ladder rating when measured: "Hard · 663". */
export function levelLabel(l: BotLevel, r?: BotRating): string {
  return r ? `${levelName(l)} · ${r.rating}` : levelName(l);
}

/** levelTitle says what a level's rating is, for its tooltip; "" without one. */
export function levelTitle(r?: BotRating): string {
  if (!r) return "";
  if (r.ratingLow === r.rating && r.ratingHigh === r.rating) return "ladder rating (Elo scale, easy = 0)";
  const n = (x: number) => (x < 0 ? `−${-x}` : String(x));
  const span = r.ratingLow < 0 ? `${n(r.ratingLow)} to ${n(r.ratingHigh)}` : `${r.ratingLow}–${r.ratingHigh}`;
  return `ladder rating (Elo scale, easy = 0), 95% interval ${span}`;
}

/** seatColour is the colour word a seat plays in Quoridor and Corners. */
export function seatColour(s: Seat): string {
  return s === Seat.FIRST ? "White" : s === Seat.SECOND ? "Black" : "";
}

export function otherSeat(s: Seat): Seat {
  return s === Seat.FIRST ? Seat.SECOND : s === Seat.SECOND ? Seat.FIRST : Seat.UNSPECIFIED;
}

const reasonText: Record<number, string> = {
  [Reason.GOAL]: "goal reached",
  [Reason.PLY_LIMIT]: "ply limit",
  [Reason.MOVE_LIMIT]: "move limit, scored",
  [Reason.DEADLINE]: "a piece left at home past the deadline",
  [Reason.RETURN_HOME]: "a piece returned home",
  [Reason.REPETITION]: "threefold repetition",
  [Reason.NO_LEGAL_MOVE]: "no legal move",
  [Reason.NO_PIECES]: "no pieces left",
  [Reason.RESIGNATION]: "resignation",
  [Reason.TIME]: "time",
  [Reason.ABANDONMENT]: "abandonment",
  [Reason.AGREEMENT]: "agreement",
  [Reason.ABORTED]: "aborted",
  [Reason.COMPLETED]: "training completed",
};

export function reasonName(r: Reason): string {
  return reasonText[r] ?? "";
}

/**
 * outcomeTitle says how a game ended from one seat's point of view ("You
 * won"), or neutrally with the seats' names for a spectator.
 */
export function outcomeTitle(o: Outcome | undefined, you: Seat, names: [string, string]): string {
  if (!o || o.result === Result.ONGOING || o.result === Result.UNSPECIFIED) return "Game in progress";
  if (o.reason === Reason.ABORTED) return "Game aborted";
  if (o.reason === Reason.COMPLETED) return "Training completed";
  if (o.result === Result.DRAW) return "Draw";
  if (you !== Seat.UNSPECIFIED) return o.winner === you ? "You won" : "You lost";
  return `${o.winner === Seat.FIRST ? names[0] : names[1]} won`;
}

/**
 * outcomeLine says in a sentence why a game ended, from one seat's point
 * of view (you: "You ran out of time.", "Your opponent reached the goal
 * row.") or a spectator's (Seat.UNSPECIFIED: the seats' names). solo is a
 * one-player training game (Corners training, C2). Empty while the game goes on.
 */
export function outcomeLine(o: Outcome | undefined, game: Game, you: Seat, names: [string, string], solo = false): string {
  if (!o || o.result === Result.ONGOING || o.result === Result.UNSPECIFIED) return "";
  const seated = you === Seat.FIRST || you === Seat.SECOND;
  // Who a seat is in the sentence: "You", "Your opponent" or its name.
  const name = (s: Seat): string => {
    const n = names[s === Seat.FIRST ? 0 : 1];
    if (n) return n;
    if (game === Game.BANQI) return s === Seat.FIRST ? "the first player" : "the second player";
    return seatColour(s);
  };
  const who = (s: Seat): string => (seated ? (s === you ? "you" : "your opponent") : name(s));
  const Who = (s: Seat): string => {
    const w = who(s);
    return w.charAt(0).toUpperCase() + w.slice(1);
  };
  const whose = (s: Seat): string => (seated && s === you ? "your" : `${who(s)}'s`);
  const own = (s: Seat): string => (seated && s === you ? "your" : "their");
  if (o.reason === Reason.ABORTED) {
    return solo
      ? "The training ended before the opposite home was filled. It does not count."
      : "The game was called off before it began: nobody played the first ply in time, or a player never came. It does not count.";
  }
  if (o.reason === Reason.COMPLETED) return `${Who(Seat.FIRST)} filled the opposite home.`;
  if (o.result === Result.DRAW) {
    switch (o.reason) {
      case Reason.PLY_LIMIT:
        return game === Game.BANQI ? "120 plies in a row went by without a capture or a reveal." : "200 plies were played without a winner.";
      case Reason.GOAL:
        return "Both players filled the other's home on the same move.";
      case Reason.MOVE_LIMIT:
        return solo
          ? "The move limit was reached before the opposite home was filled."
          : "The move limit was reached with both players having the same number of pieces in the other's home.";
      case Reason.DEADLINE:
        return "Both players still had a piece at home after the leave-home deadline.";
      case Reason.REPETITION:
        return "The same position came up for the third time.";
      case Reason.NO_LEGAL_MOVE:
        return "The player to move had no legal move.";
      case Reason.AGREEMENT:
        return seated ? "You and your opponent agreed to a draw." : `${name(Seat.FIRST)} and ${name(Seat.SECOND)} agreed to a draw.`;
    }
    const r = reasonName(o.reason);
    return r ? `Drawn (${r}).` : "";
  }
  const w = o.winner;
  const l = otherSeat(w);
  switch (o.reason) {
    case Reason.GOAL:
      return game === Game.CORNERS ? `${Who(w)} filled ${whose(l)} home first.` : `${Who(w)} reached the goal row.`;
    case Reason.MOVE_LIMIT:
      return `The move limit was reached with more of ${whose(w)} pieces in ${whose(l)} home.`;
    case Reason.DEADLINE:
      return `${Who(l)} still had a piece at home after the leave-home deadline.`;
    case Reason.RETURN_HOME:
      return `${Who(l)} moved a piece back into ${own(l)} own home after the leave-home deadline.`;
    case Reason.NO_LEGAL_MOVE:
      return `${Who(l)} had no legal move left.`;
    case Reason.NO_PIECES:
      return `${Who(l)} had no pieces left.`;
    case Reason.RESIGNATION:
      return `${Who(l)} resigned.`;
    case Reason.TIME:
      return `${Who(l)} ran out of time.`;
    case Reason.ABANDONMENT:
      return `${Who(l)} left the game and did not come back in time.`;
  }
  const r = reasonName(o.reason);
  return r ? `${Who(w)} won (${r}).` : "";
}

/** Banqi piece kinds by rank, high to low (B4.1), with the letters of B1. */
const banqiKinds = [
  { name: "general", letter: "K", red: "帥", black: "將" },
  { name: "advisor", letter: "A", red: "仕", black: "士" },
  { name: "elephant", letter: "B", red: "相", black: "象" },
  { name: "chariot", letter: "R", red: "俥", black: "車" },
  { name: "horse", letter: "N", red: "傌", black: "馬" },
  { name: "cannon", letter: "C", red: "炮", black: "砲" },
  { name: "soldier", letter: "P", red: "兵", black: "卒" },
];

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
    name: `${red ? "Red" : "Black"} ${k.name}`,
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
  if (!tc) return "No clock";
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
  return what ? `${what}: ${r}` : r;
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
