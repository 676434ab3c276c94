// Board geometry shared by the renderer, the pointer handling and the
// tests: squares in RULES.md notation ("e1"), their place on screen (the
// board turned so that the viewer plays from the bottom), and the Quoridor
// grooves that walls lie in.

/** A square as file and rank, both 0-based: "a1" is {file: 0, rank: 0}. */
export interface Square {
  file: number;
  rank: number;
}

/** parseSquare reads "e1" (files a–p, ranks 1–16); undefined when malformed. */
export function parseSquare(s: string): Square | undefined {
  const m = /^([a-p])(1[0-6]|[1-9])$/.exec(s);
  if (!m) return undefined;
  return { file: m[1].charCodeAt(0) - 97, rank: Number(m[2]) - 1 };
}

/** squareName writes a square in notation. */
export function squareName(file: number, rank: number): string {
  return String.fromCharCode(97 + file) + String(rank + 1);
}

/** Dims is a board's width (files) and height (ranks). */
export interface Dims {
  files: number;
  ranks: number;
}

/** Cell is a place on screen: column from the left, row from the top. */
export interface Cell {
  col: number;
  row: number;
}

/**
 * toCell places a square on screen. Unflipped, rank 1 is the bottom row and
 * file a the left column (white's view); flipped turns the board by 180°.
 */
export function toCell(sq: Square, d: Dims, flipped: boolean): Cell {
  return flipped
    ? { col: d.files - 1 - sq.file, row: sq.rank }
    : { col: sq.file, row: d.ranks - 1 - sq.rank };
}

/** fromCell is toCell's inverse. */
export function fromCell(c: Cell, d: Dims, flipped: boolean): Square {
  return flipped
    ? { file: d.files - 1 - c.col, rank: c.row }
    : { file: c.col, rank: d.ranks - 1 - c.row };
}

/**
 * Layout is where cells are drawn in SVG user units: cell i starts at
 * margin + i * (cell + gap). Quoridor boards have gaps (the grooves);
 * Corners and Banqi boards have none.
 */
export interface Layout {
  dims: Dims;
  flipped: boolean;
  cell: number;
  gap: number;
  margin: number;
}

export function layoutSize(l: Layout): { width: number; height: number } {
  const pitch = l.cell + l.gap;
  return {
    width: 2 * l.margin + l.dims.files * pitch - l.gap,
    height: 2 * l.margin + l.dims.ranks * pitch - l.gap,
  };
}

/** cellOrigin is the top-left corner of a cell in user units. */
export function cellOrigin(l: Layout, c: Cell): { x: number; y: number } {
  const pitch = l.cell + l.gap;
  return { x: l.margin + c.col * pitch, y: l.margin + c.row * pitch };
}

/** squareCenter is the centre of a square in user units. */
export function squareCenter(l: Layout, sq: Square): { x: number; y: number } {
  const o = cellOrigin(l, toCell(sq, l.dims, l.flipped));
  return { x: o.x + l.cell / 2, y: o.y + l.cell / 2 };
}

/**
 * squareAt is the square under a point, or undefined over a groove or
 * outside the board.
 */
export function squareAt(l: Layout, x: number, y: number): Square | undefined {
  const pitch = l.cell + l.gap;
  const gx = (x - l.margin) / pitch;
  const gy = (y - l.margin) / pitch;
  const col = Math.floor(gx);
  const row = Math.floor(gy);
  if (col < 0 || row < 0 || col >= l.dims.files || row >= l.dims.ranks) return undefined;
  if ((gx - col) * pitch > l.cell || (gy - row) * pitch > l.cell) return undefined;
  return fromCell({ col, row }, l.dims, l.flipped);
}

// ---- Quoridor walls ----

export type Orientation = "h" | "v";

/** Wall is a Quoridor wall: its anchor (the square nearest a1 of the four it touches) and orientation (Q1). */
export interface Wall {
  anchor: Square;
  orientation: Orientation;
}

/** parseWall reads "e3h"; undefined when it is not a wall with an anchor a1–h8. */
export function parseWall(s: string): Wall | undefined {
  const m = /^([a-h])([1-8])([hv])$/.exec(s);
  if (!m) return undefined;
  return {
    anchor: { file: m[1].charCodeAt(0) - 97, rank: Number(m[2]) - 1 },
    orientation: m[3] as Orientation,
  };
}

export function wallName(w: Wall): string {
  return squareName(w.anchor.file, w.anchor.rank) + w.orientation;
}

/**
 * wallRect is the rectangle a wall covers on a Quoridor layout: the groove
 * between the two pairs of squares it separates, two cells and the gap
 * between them long, centred on the intersection of the anchor's 2×2 block.
 */
export function wallRect(l: Layout, w: Wall): { x: number; y: number; width: number; height: number } {
  const a = squareCenter(l, w.anchor);
  const b = squareCenter(l, { file: w.anchor.file + 1, rank: w.anchor.rank + 1 });
  const cx = (a.x + b.x) / 2;
  const cy = (a.y + b.y) / 2;
  const long = 2 * l.cell + l.gap;
  return w.orientation === "h"
    ? { x: cx - long / 2, y: cy - l.gap / 2, width: long, height: l.gap }
    : { x: cx - l.gap / 2, y: cy - long / 2, width: l.gap, height: long };
}

/** wallCenter is the centre of a wall (the groove intersection it is centred on). */
export function wallCenter(l: Layout, w: Wall): { x: number; y: number } {
  const r = wallRect(l, w);
  return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
}

/**
 * wallAt is the wall a pointer at (x, y) proposes on a 9×9 Quoridor layout:
 * in a horizontal groove a horizontal wall, in a vertical groove a vertical
 * one, spanning the cell under the pointer and its neighbour on the side of
 * the pointer (kept on the board). At a groove crossing, `prefer` decides.
 * Over a cell it is undefined when strict, or otherwise the nearest
 * crossing with the orientation `prefer` (for taps on touch screens).
 */
export function wallAt(l: Layout, x: number, y: number, prefer: Orientation, strict: boolean): Wall | undefined {
  const pitch = l.cell + l.gap;
  const gx = (x - l.margin) / pitch;
  const gy = (y - l.margin) / pitch;
  const n = l.dims.files; // 9
  if (gx < -0.25 || gy < -0.25 || gx > n + 0.1 || gy > n + 0.1) return undefined;
  const col = Math.floor(gx);
  const row = Math.floor(gy);
  const inVGroove = (gx - col) * pitch > l.cell && col < n - 1;
  const inHGroove = (gy - row) * pitch > l.cell && row < n - 1;
  let orientation: Orientation;
  if (inHGroove && !inVGroove) orientation = "h";
  else if (inVGroove && !inHGroove) orientation = "v";
  else if (inHGroove && inVGroove) orientation = prefer;
  else if (strict) return undefined;
  else orientation = prefer;
  const clamp = (i: number) => Math.max(0, Math.min(n - 2, i));
  // The 2×2 block of cells (top-left c0, r0) the wall is centred in.
  let c0: number;
  let r0: number;
  const fx = gx - col; // position within the cell's pitch, 0..1
  const fy = gy - row;
  if (orientation === "h") {
    r0 = inHGroove ? row : clamp(fy < 0.5 ? row - 1 : row);
    c0 = inVGroove ? col : clamp(fx * pitch < l.cell / 2 ? col - 1 : col);
  } else {
    c0 = inVGroove ? col : clamp(fx < 0.5 ? col - 1 : col);
    r0 = inHGroove ? row : clamp(fy * pitch < l.cell / 2 ? row - 1 : row);
  }
  c0 = clamp(c0);
  r0 = clamp(r0);
  const corners = [
    fromCell({ col: c0, row: r0 }, l.dims, l.flipped),
    fromCell({ col: c0 + 1, row: r0 + 1 }, l.dims, l.flipped),
  ];
  return {
    anchor: {
      file: Math.min(corners[0].file, corners[1].file),
      rank: Math.min(corners[0].rank, corners[1].rank),
    },
    orientation,
  };
}

/**
 * pointerWall is the wall a pointer at (x, y) picks, for the hover and the
 * click alike (one choice, so that they agree): wallAt's, except that the
 * wall already shown (`shown`, the preview a hover or a first tap drew)
 * stays picked while the pointer is within `slack` user units of a point
 * that picks it. Without that, a pointer on the line where the choice
 * changes (a column's centre, in a groove) can pick one wall on the move
 * and its neighbour on the click: Chromium reports pointer moves to a
 * fraction of a pixel but the click at the whole pixel.
 */
export function pointerWall(
  l: Layout, x: number, y: number, prefer: Orientation, strict: boolean, shown?: Wall, slack = 0,
): Wall | undefined {
  const w = wallAt(l, x, y, prefer, strict);
  if (!w || !shown || slack <= 0 || sameWall(w, shown)) return w;
  for (const dx of [-slack, 0, slack]) {
    for (const dy of [-slack, 0, slack]) {
      const o = wallAt(l, x + dx, y + dy, prefer, strict);
      if (o && sameWall(o, shown)) return shown;
    }
  }
  return w;
}

/** sameWall reports whether two walls are the same wall. */
export function sameWall(a: Wall, b: Wall): boolean {
  return a.orientation === b.orientation && a.anchor.file === b.anchor.file && a.anchor.rank === b.anchor.rank;
}

/**
 * nearestWall is the wall among `walls` fewest keys away from `from` (a
 * step of the cursor or a turn of the wall each), the first listed among
 * the nearest; undefined when there is none. The wall cursor goes there
 * when wall mode starts on a wall that cannot be placed (as the terminal's
 * does).
 */
export function nearestWall(from: Wall, walls: Wall[]): Wall | undefined {
  let best: Wall | undefined;
  let bestCost = Infinity;
  for (const w of walls) {
    const cost = Math.abs(w.anchor.file - from.anchor.file) + Math.abs(w.anchor.rank - from.anchor.rank) +
      (w.orientation === from.orientation ? 0 : 1);
    if (cost < bestCost) {
      best = w;
      bestCost = cost;
    }
  }
  return best;
}

/**
 * wallsConflict reports whether two walls overlap or cross (Q3.2, Q3.3):
 * the client uses it to grey a preview at once; the server decides.
 */
export function wallsConflict(a: Wall, b: Wall): boolean {
  if (a.orientation !== b.orientation) {
    return a.anchor.file === b.anchor.file && a.anchor.rank === b.anchor.rank;
  }
  if (a.orientation === "h") {
    return a.anchor.rank === b.anchor.rank && Math.abs(a.anchor.file - b.anchor.file) <= 1;
  }
  return a.anchor.file === b.anchor.file && Math.abs(a.anchor.rank - b.anchor.rank) <= 1;
}

/** moveCursor moves a keyboard cursor by one square on screen, kept on the board. */
export function moveCursor(sq: Square, d: Dims, flipped: boolean, dcol: number, drow: number): Square {
  const c = toCell(sq, d, flipped);
  const col = Math.max(0, Math.min(d.files - 1, c.col + dcol));
  const row = Math.max(0, Math.min(d.ranks - 1, c.row + drow));
  return fromCell({ col, row }, d, flipped);
}
