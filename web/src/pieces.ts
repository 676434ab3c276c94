// How Banqi pieces are drawn: the traditional characters (帥仕相俥傌炮兵 /
// 將士象車馬包卒) as outlines (glyphs.ts: paths, not text, so that a
// machine without a CJK font draws them too), or Latin letters (B1's
// K A B R N C P), as the player chooses; the choice is remembered.
import { glyphs } from "./glyphs";
import type { BanqiInfo } from "./notation";

export type PieceStyle = "characters" | "letters";

const KEY = "tabuleiro.pieces";
let style: PieceStyle = load();
const listeners: (() => void)[] = [];

function load(): PieceStyle {
  try {
    return typeof localStorage !== "undefined" && localStorage.getItem(KEY) === "letters" ? "letters" : "characters";
  } catch {
    return "characters";
  }
}

/** pieceStyle is how pieces are drawn now. */
export function pieceStyle(): PieceStyle {
  return style;
}

/** setPieceStyle changes how pieces are drawn, remembers it, and tells the listeners (the page redraws). */
export function setPieceStyle(s: PieceStyle): void {
  style = s;
  try { localStorage.setItem(KEY, s); } catch { /* this page only */ }
  for (const f of listeners) f();
}

export function onPieceStyle(f: () => void): void {
  listeners.push(f);
}

/**
 * pieceFace draws a revealed piece's face centred at (x, y) in a disc of
 * radius r, in ink: its character's outline, with its letter small in a
 * corner, or its letter alone, large.
 */
export function pieceFace(info: BanqiInfo, x: number, y: number, r: number, ink: string, s: PieceStyle = style): string {
  const letter = info.letter.toUpperCase();
  const d = glyphs[info.glyph];
  if (s === "letters" || !d) {
    return `<text class="piece-letter" x="${x}" y="${y}" font-size="${r * 1.1}" text-anchor="middle" dominant-baseline="central" fill="${ink}" font-family="'DejaVu Sans',system-ui,sans-serif" font-weight="700">${letter}</text>`;
  }
  // The em square is 1000 units, y down; a character fills about its middle 900.
  const size = r * 1.18;
  const k = size / 1000;
  const tx = x - size / 2;
  const ty = y - size / 2;
  return `<path class="piece-glyph" d="${d}" transform="translate(${round(tx)} ${round(ty)}) scale(${round(k, 5)})" fill="${ink}"/>` +
    `<text x="${x + r * 0.64}" y="${y + r * 0.84}" font-size="${r * 0.42}" text-anchor="middle" fill="${ink}" fill-opacity=".75" font-family="'DejaVu Sans',system-ui,sans-serif" font-weight="700">${letter}</text>`;
}

function round(v: number, digits = 2): number {
  const m = 10 ** digits;
  return Math.round(v * m) / m;
}
