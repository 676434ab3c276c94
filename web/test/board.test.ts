import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { LAST_WALL_FIRST, LAST_WALL_SECOND, renderBoard } from "../src/board";
import { Game, Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { GameViewSchema, QuoridorBoardSchema, QuoridorWallSchema, WallOrientation } from "../src/gen/tabuleiro/game/v1/view_pb";

/** luminance and contrast are WCAG 2's relative luminance and contrast ratio of #rrggbb colours. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
/** mean mixes #rrggbb colours evenly (a gradient's colour seen from afar). */
function mean(cs: string[]): string {
  const ch = [1, 3, 5].map((i) => Math.round(cs.reduce((s, c) => s + parseInt(c.slice(i, i + 2), 16), 0) / cs.length));
  return "#" + ch.map((v) => v.toString(16).padStart(2, "0")).join("");
}

function wallsSvg(): string {
  const view = create(GameViewSchema, {
    game: Game.QUORIDOR,
    plyCount: 4,
    board: {
      case: "quoridor",
      value: create(QuoridorBoardSchema, {
        first: { pawn: "e2", goalRank: 9, wallsLeft: 9 },
        second: { pawn: "e8", goalRank: 1, wallsLeft: 9 },
        walls: [
          create(QuoridorWallSchema, { anchor: "c3", orientation: WallOrientation.HORIZONTAL, placedBy: Seat.FIRST, plyNumber: 1 }),
          create(QuoridorWallSchema, { anchor: "e6", orientation: WallOrientation.HORIZONTAL, placedBy: Seat.SECOND, plyNumber: 2 }),
        ],
      }),
    },
  });
  return renderBoard({ view, flipped: false });
}

/** look reads what a placed wall is drawn with: its gradient's stops and its edge. */
function look(svg: string, anchor: string): { stops: string[]; edge: string } {
  const rect = svg.match(new RegExp(`<rect class="wall(?: placer-last)?"[^>]*data-wall="${anchor}h"[^>]*>`))?.[0];
  assert.ok(rect, `the wall ${anchor}h is drawn`);
  const grad = rect.match(/fill="url\(#([^)]+)\)"/)![1];
  const def = svg.match(new RegExp(`<linearGradient id="${grad}"[\\s\\S]*?</linearGradient>`))?.[0];
  assert.ok(def, `its gradient ${grad} is defined`);
  const stops = [...def.matchAll(/stop-color="(#[0-9a-f]{6})"/gi)].map((m) => m[1]);
  const edge = rect.match(/stroke="([^"]+)"/)![1];
  return { stops, edge };
}

test("Black's Quoridor walls stand out from the dark groove they lie in, the squares beside it, and differ from White's", () => {
  const svg = wallsSvg();
  // The grooves: the dark board under the squares.
  const groove = svg.match(/<rect[^>]*rx="4" fill="(#[0-9a-f]{6})"/i)?.[1];
  assert.ok(groove, "the groove is drawn");
  // The squares' most common colour (the goal ranks are tinted).
  const fills = [...svg.matchAll(/class="sq"[^>]*fill="(#[0-9a-f]{6})"/gi)].map((m) => m[1]);
  const square = fills.sort((a, b) => fills.filter((x) => x === b).length - fills.filter((x) => x === a).length)[0];
  assert.ok(square, "the squares are drawn");
  const black = look(svg, "e6");
  const white = look(svg, "c3");
  const body = mean(black.stops);
  assert.ok(contrast(body, groove) >= 2.5, `Black's wall (${body}) against the groove (${groove}): ${contrast(body, groove).toFixed(2)} < 2.5`);
  assert.match(black.edge, /^#[0-9a-f]{6}$/i, "Black's wall has an edge of its own");
  assert.ok(contrast(black.edge, groove) >= 4.5, `Black's wall's edge (${black.edge}) against the groove: ${contrast(black.edge, groove).toFixed(2)} < 4.5`);
  assert.ok(contrast(body, square) >= 1.8, `Black's wall (${body}) against a square (${square}): ${contrast(body, square).toFixed(2)}`);
  const whiteBody = mean(white.stops);
  assert.ok(contrast(body, whiteBody) >= 2, `Black's walls (${body}) differ from White's (${whiteBody}): ${contrast(body, whiteBody).toFixed(2)} < 2`);
});

test("the last wall each player placed stays bordered in its placer's colour, after the other's plies too", () => {
  const wall = (anchor: string, placedBy: Seat, plyNumber: number) =>
    create(QuoridorWallSchema, { anchor, orientation: WallOrientation.HORIZONTAL, placedBy, plyNumber });
  const view = create(GameViewSchema, {
    game: Game.QUORIDOR,
    plyCount: 6,
    // White's last wall was ply 3, Black's ply 4; ply 5 and 6 were pawn steps.
    lastPly: { number: 6, seat: Seat.SECOND, notation: "e7" },
    board: {
      case: "quoridor",
      value: create(QuoridorBoardSchema, {
        first: { pawn: "e3", goalRank: 9, wallsLeft: 8 },
        second: { pawn: "e7", goalRank: 1, wallsLeft: 8 },
        walls: [wall("a3", Seat.FIRST, 1), wall("a6", Seat.SECOND, 2), wall("c3", Seat.FIRST, 3), wall("c6", Seat.SECOND, 4)],
      }),
    },
  });
  const svg = renderBoard({ view, flipped: false });
  const marked = [...svg.matchAll(/<rect class="wall placer-last"[^>]*data-wall="(\w+)"[^>]*data-placed-by="(\w+)"[^>]*stroke="([^"]+)"/g)].map((m) => [m[1], m[2], m[3]]);
  assert.deepEqual(marked, [["c3h", "white", LAST_WALL_FIRST], ["c6h", "black", LAST_WALL_SECOND]]);
  // Each marker stands out from the groove, and from the other's.
  const groove = svg.match(/<rect[^>]*rx="4" fill="(#[0-9a-f]{6})"/i)![1];
  for (const c of [LAST_WALL_FIRST, LAST_WALL_SECOND]) assert.ok(contrast(c, groove) >= 4.5, `${c} on the groove ${groove}`);
  assert.notEqual(LAST_WALL_FIRST, LAST_WALL_SECOND);
  assert.equal([...svg.matchAll(/placer-last/g)].length, 2, "the earlier walls are not marked");
});
