// The boards, drawn as SVG from a game.v1 GameView: Quoridor (cells,
// grooves, pawns, walls in their placer's colour), Corners (a checkered
// board with both homes tinted, white and black stones) and Banqi (an 8×4
// board, face-down discs, revealed pieces). The last ply is marked, the
// selected piece and its legal destinations shown, and a Quoridor wall
// under the pointer previewed as valid or invalid.
import { BanqiColor, BanqiPiece, Game, Seat } from "./gen/tabuleiro/game/v1/game_pb";
import type { GameView } from "./gen/tabuleiro/game/v1/view_pb";
import {
  cellOrigin,
  layoutSize,
  parseSquare,
  squareCenter,
  squareName,
  toCell,
  wallName,
  wallRect,
  type Dims,
  type Layout,
  type Square,
  type Wall,
} from "./geometry";
import { banqiInfo, plyShape } from "./notation";
import { t } from "./i18n";
import { pieceFace } from "./pieces";

export type PreviewState = "valid" | "invalid" | "checking";

/** BoardState is everything the board shows besides the position. */
export interface BoardState {
  view: GameView;
  flipped: boolean;
  selected?: string;
  destinations?: string[];
  /** losing are the destinations that lose the game at once (Corners, C5.2): drawn as warning dots. */
  losing?: string[];
  /** lastFrom is the square the last ply started from, when the client knows it (a Quoridor pawn's). */
  lastFrom?: string;
  preview?: { wall: Wall; state: PreviewState };
  /** cursor is the keyboard cursor's square, or its wall in wall mode. */
  cursor?: string;
  cursorWall?: Wall;
  /** cursorWallState: whether the wall at the cursor may go down (red when not), as far as known. */
  cursorWallState?: PreviewState;
  /** interactive: the viewer may act (draws the pointer cursor on movable pieces). */
  interactive?: boolean;
}

export function dimsOf(view: GameView): Dims {
  switch (view.board.case) {
    case "quoridor":
      return { files: 9, ranks: 9 };
    case "corners":
      return { files: view.board.value.size || 8, ranks: view.board.value.size || 8 };
    case "banqi":
      return { files: 8, ranks: 4 };
    default:
      return { files: 8, ranks: 8 };
  }
}

/** layoutFor is the layout a view is drawn with (the e2e tests aim clicks with it). */
export function layoutFor(view: GameView, flipped: boolean): Layout {
  const dims = dimsOf(view);
  switch (view.game) {
    case Game.QUORIDOR:
      return { dims, flipped, cell: 52, gap: 12, margin: 30 };
    case Game.BANQI:
      return { dims, flipped: false, cell: 70, gap: 0, margin: 26 };
    default:
      return { dims, flipped, cell: dims.files > 8 ? 36 : 64, gap: 0, margin: 26 };
  }
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** A wall preview that may go down, and one that may not. */
const PREVIEW_VALID = "#3f8f4f";
const PREVIEW_INVALID = "#c0392b";

/** The grooves between Quoridor's squares, where the walls go. */
export const GROOVE = "#4a2d15";
/** White's walls: ivory, edged dark. */
export const WALL_FIRST = ["#fbf3e1", "#d9c7a2"] as const;
/**
 * Black's walls: slate, edged light. Not near-black: in the dark-brown
 * groove that was nearly invisible; slate stands out from the groove, the
 * tan squares and White's ivory walls alike.
 */
export const WALL_SECOND = ["#8792a2", "#5f6a7a"] as const;
export const WALL_SECOND_EDGE = "#eef2f7";
/**
 * LAST_WALL_FIRST and LAST_WALL_SECOND border each player's last wall in
 * that player's colour: White's ivory, and the light slate of Black's walls
 * (a black line would vanish in the dark groove).
 */
export const LAST_WALL_FIRST = "#fffaf0";
export const LAST_WALL_SECOND = "#9cc0f0";

function defs(): string {
  return `<defs>
  <radialGradient id="g-white" cx="38%" cy="32%" r="70%"><stop offset="0" stop-color="#ffffff"/><stop offset=".6" stop-color="#efe8da"/><stop offset="1" stop-color="#c9bda6"/></radialGradient>
  <radialGradient id="g-black" cx="38%" cy="32%" r="70%"><stop offset="0" stop-color="#6b625b"/><stop offset=".55" stop-color="#2f2926"/><stop offset="1" stop-color="#161312"/></radialGradient>
  <radialGradient id="g-ivory" cx="40%" cy="35%" r="75%"><stop offset="0" stop-color="#fffaf0"/><stop offset=".7" stop-color="#f1e2c2"/><stop offset="1" stop-color="#d8c39a"/></radialGradient>
  <radialGradient id="g-back" cx="40%" cy="35%" r="75%"><stop offset="0" stop-color="#a8733f"/><stop offset=".7" stop-color="#7d4f26"/><stop offset="1" stop-color="#5b3818"/></radialGradient>
  <linearGradient id="g-frame" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#7a4d2a"/><stop offset="1" stop-color="#5a361b"/></linearGradient>
  <linearGradient id="g-wall-first" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${WALL_FIRST[0]}"/><stop offset="1" stop-color="${WALL_FIRST[1]}"/></linearGradient>
  <linearGradient id="g-wall-second" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${WALL_SECOND[0]}"/><stop offset="1" stop-color="${WALL_SECOND[1]}"/></linearGradient>
  <filter id="f-shadow" x="-30%" y="-30%" width="160%" height="160%"><feDropShadow dx="0" dy="1.5" stdDeviation="1.4" flood-color="#000" flood-opacity=".35"/></filter>
</defs>`;
}

/** renderBoard returns the board's SVG markup. */
export function renderBoard(st: BoardState): string {
  const l = layoutFor(st.view, st.flipped);
  const { width, height } = layoutSize(l);
  let body: string;
  switch (st.view.board.case) {
    case "quoridor":
      body = quoridor(st, l);
      break;
    case "corners":
      body = corners(st, l);
      break;
    case "banqi":
      body = banqi(st, l);
      break;
    default:
      body = "";
  }
  const label = boardLabel(st.view);
  return `<svg class="board board-${st.view.board.case ?? "none"}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}" data-flipped="${l.flipped}" xmlns="http://www.w3.org/2000/svg">${defs()}${body}</svg>`;
}

function boardLabel(v: GameView): string {
  switch (v.board.case) {
    case "quoridor":
      return t("board.quoridor", { white: v.board.value.first?.pawn ?? "", black: v.board.value.second?.pawn ?? "", count: v.board.value.walls.length });
    case "corners":
      return t("board.corners", { size: `${v.board.value.size}×${v.board.value.size}` });
    case "banqi":
      return t("board.banqi");
    default:
      return t("board");
  }
}

function coords(l: Layout, color: string): string {
  let s = "";
  const size = l.dims.files > 9 ? 10 : 12;
  // On a phone (styles.css) the board is about 340 px wide: this size
  // draws the coordinates about 10 px high there, within the margin.
  const small = Math.min(Math.ceil((10 * layoutSize(l).width) / 340), Math.floor(l.margin * 0.7));
  const attrs = `font-size="${size}" style="--coord-small:${small}px" fill="${color}" text-anchor="middle" dominant-baseline="central"`;
  for (let f = 0; f < l.dims.files; f++) {
    const c = squareCenter(l, { file: f, rank: l.flipped ? l.dims.ranks - 1 : 0 });
    s += `<text class="coord" x="${c.x}" y="${layoutSize(l).height - l.margin / 2}" ${attrs}>${String.fromCharCode(97 + f)}</text>`;
  }
  for (let r = 0; r < l.dims.ranks; r++) {
    const c = squareCenter(l, { file: l.flipped ? l.dims.files - 1 : 0, rank: r });
    s += `<text class="coord" x="${l.margin / 2}" y="${c.y}" ${attrs}>${r + 1}</text>`;
  }
  return s;
}

function rect(x: number, y: number, w: number, h: number, attrs: string): string {
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" ${attrs}/>`;
}

function cellRect(l: Layout, sq: Square, attrs: string, inset = 0): string {
  const o = cellOrigin(l, toCell(sq, l.dims, l.flipped));
  return rect(o.x + inset, o.y + inset, l.cell - 2 * inset, l.cell - 2 * inset, attrs);
}

function dots(st: BoardState, l: Layout, occupied: Set<string>): string {
  let s = "";
  for (const d of st.destinations ?? []) {
    const sq = parseSquare(d);
    if (!sq) continue;
    const c = squareCenter(l, sq);
    s += st.losing?.includes(d)
      ? `<circle class="dest lose" data-dest="${d}" cx="${c.x}" cy="${c.y}" r="${l.cell * 0.2}" fill="#d9480f" stroke="#fff3e0" stroke-width="${l.cell * 0.04}"><title>${esc(t("board.loses"))}</title></circle>`
      : occupied.has(d)
      ? `<circle class="dest capture" data-dest="${d}" cx="${c.x}" cy="${c.y}" r="${l.cell * 0.44}" fill="none" stroke="rgba(30,60,20,.55)" stroke-width="${l.cell * 0.08}"/>`
      : `<circle class="dest" data-dest="${d}" cx="${c.x}" cy="${c.y}" r="${l.cell * 0.15}" fill="rgba(30,60,20,.45)"/>`;
  }
  return s;
}

function cursorMark(st: BoardState, l: Layout): string {
  if (!st.cursor) return "";
  const sq = parseSquare(st.cursor);
  if (!sq) return "";
  return cellRect(l, sq, `class="kbd-cursor" fill="none" stroke="#2f6fd6" stroke-width="3" rx="4"`, 1.5);
}

const LAST = `fill="#d6c844" fill-opacity=".55"`;
const SELECTED = `fill="#5c9a4a" fill-opacity=".55"`;

// ---- Quoridor ----

function quoridor(st: BoardState, l: Layout): string {
  if (st.view.board.case !== "quoridor") return "";
  const b = st.view.board.value;
  const { width, height } = layoutSize(l);
  let s = rect(0, 0, width, height, `rx="10" fill="url(#g-frame)"`);
  s += rect(l.margin - l.gap / 2, l.margin - l.gap / 2, width - 2 * l.margin + l.gap, height - 2 * l.margin + l.gap, `rx="4" fill="${GROOVE}"`);
  const last = st.view.lastPly ? plyShape(Game.QUORIDOR, st.view.lastPly.notation) : undefined;
  const goalFirst = (b.first?.goalRank ?? 9) - 1;
  const goalSecond = (b.second?.goalRank ?? 1) - 1;
  for (let r = 0; r < 9; r++) {
    for (let f = 0; f < 9; f++) {
      const name = squareName(f, r);
      let fill = "#d8b483";
      if (r === goalFirst) fill = "#e6cfa6"; // white's goal rank: lighter
      if (r === goalSecond) fill = "#bf9766"; // black's goal rank: darker
      s += cellRect(l, { file: f, rank: r }, `class="sq" data-sq="${name}" rx="4" fill="${fill}"`);
      if (last?.kind === "pawn" && (name === squareName(last.to.file, last.to.rank) || name === st.lastFrom)) {
        s += cellRect(l, { file: f, rank: r }, `class="last" rx="4" ${LAST} pointer-events="none"`);
      }
      if (st.selected === name) s += cellRect(l, { file: f, rank: r }, `class="selected" rx="4" ${SELECTED} pointer-events="none"`);
    }
  }
  s += coords(l, "#e9d6b4");
  // Walls, in their placer's colour; the last one each player placed
  // stays bordered in that player's colour (the seeds' sites do so), so
  // that one's own last wall is still marked after the opponent's reply.
  const placerLast = new Map<Seat, number>();
  for (const w of b.walls) placerLast.set(w.placedBy, Math.max(placerLast.get(w.placedBy) ?? 0, w.plyNumber));
  for (const w of b.walls) {
    const sq = parseSquare(w.anchor);
    if (!sq) continue;
    const wall: Wall = { anchor: sq, orientation: w.orientation === 2 ? "v" : "h" };
    const r = wallRect(l, wall);
    const isLast = last?.kind === "wall" && st.view.lastPly?.number === w.plyNumber;
    const second = w.placedBy === Seat.SECOND;
    const grad = second ? "url(#g-wall-second)" : "url(#g-wall-first)";
    const marked = w.plyNumber > 0 && placerLast.get(w.placedBy) === w.plyNumber;
    const edge = marked ? (second ? LAST_WALL_SECOND : LAST_WALL_FIRST) : second ? WALL_SECOND_EDGE : "rgba(0,0,0,.45)";
    s += `<rect class="wall${marked ? " placer-last" : ""}${isLast ? " last-wall" : ""}" data-wall="${w.anchor}${wall.orientation}" data-placed-by="${second ? "black" : "white"}" x="${r.x + 1}" y="${r.y + 1}" width="${r.width - 2}" height="${r.height - 2}" rx="3" fill="${grad}" stroke="${edge}" stroke-width="${marked ? 3 : second ? 1.2 : 1}" filter="url(#f-shadow)" pointer-events="none"/>`;
  }
  if (st.preview) {
    // A little thicker than the groove, so that a thumb sees it.
    const g = wallRect(l, st.preview.wall);
    const r = st.preview.wall.orientation === "h" ? { ...g, y: g.y - 2, height: g.height + 4 } : { ...g, x: g.x - 2, width: g.width + 4 };
    const colour = st.preview.state === "valid" ? PREVIEW_VALID : st.preview.state === "invalid" ? PREVIEW_INVALID : "#8c8c8c";
    s += `<rect class="wall-preview ${st.preview.state}" x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}" rx="3" fill="${colour}" fill-opacity=".78" stroke="#fff" stroke-opacity=".6" pointer-events="none"/>`;
  }
  if (st.cursorWall) {
    const r = wallRect(l, st.cursorWall);
    // The wall the keys would place, in the preview's colours, ringed in
    // the cursor's blue, or in red when it cannot go there.
    const state = st.cursorWallState ?? "checking";
    const fill = state === "valid" ? PREVIEW_VALID : state === "invalid" ? PREVIEW_INVALID : "none";
    const ring = state === "invalid" ? PREVIEW_INVALID : "#2f6fd6";
    s += `<rect class="kbd-cursor ${state}" data-wall="${wallName(st.cursorWall)}" x="${r.x - 2}" y="${r.y - 2}" width="${r.width + 4}" height="${r.height + 4}" rx="4" fill="${fill}" fill-opacity=".7" stroke="${ring}" stroke-width="2.5" pointer-events="none"/>`;
  }
  const occupied = new Set<string>();
  for (const [side, seat] of [[b.first, Seat.FIRST], [b.second, Seat.SECOND]] as const) {
    const sq = side && parseSquare(side.pawn);
    if (!sq) continue;
    occupied.add(side.pawn);
    const c = squareCenter(l, sq);
    const movable = st.interactive && st.view.toMove === seat && (st.view.viewer === seat || st.view.viewer === Seat.UNSPECIFIED);
    s += `<g class="pawn ${seat === Seat.FIRST ? "white" : "black"}${movable ? " movable" : ""}" data-pawn="${side.pawn}" pointer-events="none" filter="url(#f-shadow)">
      <circle cx="${c.x}" cy="${c.y}" r="${l.cell * 0.36}" fill="${seat === Seat.FIRST ? "url(#g-white)" : "url(#g-black)"}" stroke="${seat === Seat.FIRST ? "#8a7a5c" : "#000"}" stroke-width="1.2"/>
      <circle cx="${c.x}" cy="${c.y}" r="${l.cell * 0.2}" fill="none" stroke="${seat === Seat.FIRST ? "#cbbd9e" : "#4d4540"}" stroke-width="1.4"/></g>`;
  }
  s += dots(st, l, new Set());
  s += cursorMark(st, l);
  return s;
}

// ---- Corners ----

function corners(st: BoardState, l: Layout): string {
  if (st.view.board.case !== "corners") return "";
  const b = st.view.board.value;
  const { width, height } = layoutSize(l);
  let s = rect(0, 0, width, height, `rx="10" fill="url(#g-frame)"`);
  const homeFirst = new Set(b.first?.home ?? []);
  const homeSecond = new Set(b.second?.home ?? []);
  const lastPath = new Set(b.lastPath);
  for (let r = 0; r < l.dims.ranks; r++) {
    for (let f = 0; f < l.dims.files; f++) {
      const name = squareName(f, r);
      const light = (f + r) % 2 === 1;
      s += cellRect(l, { file: f, rank: r }, `class="sq" data-sq="${name}" fill="${light ? "#ecd6b0" : "#b98b5e"}"`);
      if (homeFirst.has(name)) s += cellRect(l, { file: f, rank: r }, `class="home-first" fill="#fff6e0" fill-opacity=".38" pointer-events="none"`);
      if (homeSecond.has(name)) s += cellRect(l, { file: f, rank: r }, `class="home-second" fill="#3b2616" fill-opacity=".28" pointer-events="none"`);
      if (lastPath.has(name)) s += cellRect(l, { file: f, rank: r }, `class="last" ${LAST} pointer-events="none"`);
      if (st.selected === name) s += cellRect(l, { file: f, rank: r }, `class="selected" ${SELECTED} pointer-events="none"`);
    }
  }
  // Outline each home as one region.
  s += homeOutline(l, homeFirst, "#f7ecd2");
  s += homeOutline(l, homeSecond, "#3a2414");
  s += coords(l, "#e9d6b4");
  if (b.lastPath.length > 1) {
    const pts = b.lastPath.map((q) => parseSquare(q)).filter((q): q is Square => !!q).map((q) => squareCenter(l, q));
    s += `<polyline class="last-path" points="${pts.map((p) => `${p.x},${p.y}`).join(" ")}" fill="none" stroke="#8a6d10" stroke-opacity=".55" stroke-width="${l.cell * 0.07}" stroke-linecap="round" stroke-linejoin="round" pointer-events="none"/>`;
  }
  const occupied = new Set<string>();
  for (const [side, seat] of [[b.first, Seat.FIRST], [b.second, Seat.SECOND]] as const) {
    for (const p of side?.pieces ?? []) {
      const sq = parseSquare(p);
      if (!sq) continue;
      occupied.add(p);
      const c = squareCenter(l, sq);
      const white = seat === Seat.FIRST;
      s += `<g class="piece ${white ? "white" : "black"}" data-piece="${p}" pointer-events="none" filter="url(#f-shadow)">
        <circle cx="${c.x}" cy="${c.y}" r="${l.cell * 0.38}" fill="${white ? "url(#g-white)" : "url(#g-black)"}" stroke="${white ? "#8a7a5c" : "#000"}" stroke-width="1"/>
        <circle cx="${c.x}" cy="${c.y}" r="${l.cell * 0.26}" fill="none" stroke="${white ? "#cfc2a4" : "#554b44"}" stroke-width="${l.cell * 0.035}"/></g>`;
    }
  }
  s += dots(st, l, new Set());
  s += cursorMark(st, l);
  return s;
}

function homeOutline(l: Layout, home: Set<string>, colour: string): string {
  // Draw the edges of home squares whose neighbour is outside the home.
  let d = "";
  for (const name of home) {
    const sq = parseSquare(name);
    if (!sq) continue;
    const o = cellOrigin(l, toCell(sq, l.dims, l.flipped));
    const x0 = o.x, y0 = o.y, x1 = o.x + l.cell, y1 = o.y + l.cell;
    const cell = toCell(sq, l.dims, l.flipped);
    const has = (dc: number, dr: number) => {
      const c = { col: cell.col + dc, row: cell.row + dr };
      for (const n of home) {
        const q = parseSquare(n)!;
        const cc = toCell(q, l.dims, l.flipped);
        if (cc.col === c.col && cc.row === c.row) return true;
      }
      return false;
    };
    if (!has(0, -1)) d += `M${x0} ${y0}H${x1}`;
    if (!has(0, 1)) d += `M${x0} ${y1}H${x1}`;
    if (!has(-1, 0)) d += `M${x0} ${y0}V${y1}`;
    if (!has(1, 0)) d += `M${x1} ${y0}V${y1}`;
  }
  return d ? `<path d="${d}" stroke="${colour}" stroke-width="2.5" stroke-opacity=".8" fill="none" pointer-events="none"/>` : "";
}

// ---- Banqi ----

/** banqiDisc draws one Banqi piece (or a face-down disc when piece is undefined) centred at (x, y). */
export function banqiDisc(x: number, y: number, r: number, piece: BanqiPiece | undefined, extra = ""): string {
  if (piece === undefined) {
    return `<g class="disc face-down" ${extra} pointer-events="none" filter="url(#f-shadow)">
      <circle cx="${x}" cy="${y}" r="${r}" fill="url(#g-back)" stroke="#3d250f" stroke-width="1.2"/>
      <circle cx="${x}" cy="${y}" r="${r * 0.72}" fill="none" stroke="#c99a62" stroke-opacity=".55" stroke-width="${r * 0.07}"/>
      <circle cx="${x}" cy="${y}" r="${r * 0.3}" fill="none" stroke="#c99a62" stroke-opacity=".4" stroke-width="${r * 0.05}"/></g>`;
  }
  const info = banqiInfo(piece);
  if (!info) return "";
  const ink = info.red ? "#b3261e" : "#1f1a17";
  return `<g class="disc revealed ${info.red ? "red" : "black"}" data-piece-kind="${info.letter}" ${extra} pointer-events="none" filter="url(#f-shadow)">
    <title>${esc(info.name)}</title>
    <circle cx="${x}" cy="${y}" r="${r}" fill="url(#g-ivory)" stroke="#8a6a3c" stroke-width="1.2"/>
    <circle cx="${x}" cy="${y}" r="${r * 0.8}" fill="none" stroke="${ink}" stroke-width="${r * 0.06}"/>
    ${pieceFace(info, x, y, r, ink)}</g>`;
}

function banqi(st: BoardState, l: Layout): string {
  if (st.view.board.case !== "banqi") return "";
  const b = st.view.board.value;
  const { width, height } = layoutSize(l);
  let s = rect(0, 0, width, height, `rx="10" fill="url(#g-frame)"`);
  s += rect(l.margin - 4, l.margin - 4, width - 2 * l.margin + 8, height - 2 * l.margin + 8, `rx="3" fill="#ead2a4"`);
  const last = st.view.lastPly ? plyShape(Game.BANQI, st.view.lastPly.notation) : undefined;
  const lastSquares = new Set<string>();
  if (last?.kind === "reveal") lastSquares.add(squareName(last.at.file, last.at.rank));
  if (last?.kind === "move") for (const q of last.path) lastSquares.add(squareName(q.file, q.rank));
  for (let r = 0; r < 4; r++) {
    for (let f = 0; f < 8; f++) {
      const name = squareName(f, r);
      s += cellRect(l, { file: f, rank: r }, `class="sq" data-sq="${name}" fill="#ead2a4" stroke="#9b7447" stroke-width="1.2"`);
      if (lastSquares.has(name)) s += cellRect(l, { file: f, rank: r }, `class="last" ${LAST} pointer-events="none"`, 1);
      if (st.selected === name) s += cellRect(l, { file: f, rank: r }, `class="selected" ${SELECTED} pointer-events="none"`, 1);
    }
  }
  s += coords(l, "#e9d6b4");
  const occupied = new Set<string>();
  b.cells.forEach((cell, i) => {
    const sq = { file: i % 8, rank: Math.floor(i / 8) };
    const name = squareName(sq.file, sq.rank);
    const c = squareCenter(l, sq);
    if (cell.state.case === "faceDown") {
      occupied.add(name);
      s += banqiDisc(c.x, c.y, l.cell * 0.42, undefined, `data-sq-piece="${name}"`);
    } else if (cell.state.case === "revealed") {
      occupied.add(name);
      s += banqiDisc(c.x, c.y, l.cell * 0.42, cell.state.value, `data-sq-piece="${name}"`);
    }
  });
  s += dots(st, l, occupied);
  s += cursorMark(st, l);
  return s;
}

/** banqiSeatColour is a seat's colour once the first reveal fixed it (B2). */
export function banqiSeatColour(view: GameView, seat: Seat): "red" | "black" | undefined {
  if (view.board.case !== "banqi") return undefined;
  const fc = view.board.value.firstColor;
  if (fc === BanqiColor.UNSPECIFIED) return undefined;
  const firstRed = fc === BanqiColor.RED;
  return (seat === Seat.FIRST) === firstRed ? "red" : "black";
}

/** capturedSvg draws a row of captured Banqi pieces. */
export function capturedSvg(pieces: BanqiPiece[], r = 13): string {
  if (!pieces.length) return "";
  const w = pieces.length * (2 * r + 3) + 4;
  let s = `<svg class="captured-row" viewBox="0 0 ${w} ${2 * r + 6}" width="${w}" height="${2 * r + 6}" xmlns="http://www.w3.org/2000/svg">${defs()}`;
  pieces.forEach((p, i) => {
    s += banqiDisc(r + 3 + i * (2 * r + 3), r + 3, r, p);
  });
  return s + "</svg>";
}
