import { test } from "node:test";
import assert from "node:assert/strict";
import {
  fromCell, layoutSize, moveCursor, nearestWall, parseSquare, parseWall, pointerWall, squareAt, squareCenter, squareName, toCell,
  wallAt, wallCenter, wallName, wallRect, wallsConflict, type Layout, type Wall,
} from "../src/geometry";

const q = (flipped: boolean): Layout => ({ dims: { files: 9, ranks: 9 }, flipped, cell: 52, gap: 12, margin: 30 });

test("squares parse and print in notation", () => {
  assert.deepEqual(parseSquare("e1"), { file: 4, rank: 0 });
  assert.deepEqual(parseSquare("p16"), { file: 15, rank: 15 });
  for (const bad of ["", "e0", "e17", "q1", "E1", "e1h", "1e"]) assert.equal(parseSquare(bad), undefined, bad);
  assert.equal(squareName(7, 3), "h4");
});

test("white sees rank 1 at the bottom; the board turns for black", () => {
  const d = { files: 9, ranks: 9 };
  assert.deepEqual(toCell({ file: 0, rank: 0 }, d, false), { col: 0, row: 8 });
  assert.deepEqual(toCell({ file: 0, rank: 0 }, d, true), { col: 8, row: 0 });
  for (const flipped of [false, true]) {
    for (let f = 0; f < 9; f++) for (let r = 0; r < 9; r++) {
      assert.deepEqual(fromCell(toCell({ file: f, rank: r }, d, flipped), d, flipped), { file: f, rank: r });
    }
  }
});

test("squareAt finds the square under every square's centre and none over a groove", () => {
  for (const flipped of [false, true]) {
    const l = q(flipped);
    for (let f = 0; f < 9; f++) for (let r = 0; r < 9; r++) {
      const c = squareCenter(l, { file: f, rank: r });
      assert.deepEqual(squareAt(l, c.x, c.y), { file: f, rank: r });
    }
    const w = wallCenter(l, { anchor: { file: 3, rank: 3 }, orientation: "h" });
    assert.equal(squareAt(l, w.x, w.y), undefined);
  }
  const { width, height } = layoutSize(q(false));
  assert.equal(width, 30 * 2 + 9 * 64 - 12);
  assert.equal(height, width);
});

test("walls: notation, rectangles between the right squares", () => {
  assert.deepEqual(parseWall("e3h"), { anchor: { file: 4, rank: 2 }, orientation: "h" });
  assert.equal(parseWall("i3h"), undefined); // anchors a1–h8 only
  assert.equal(parseWall("e9v"), undefined);
  assert.equal(wallName({ anchor: { file: 0, rank: 7 }, orientation: "v" }), "a8v");
  const l = q(false);
  // e3h lies between ranks 3 and 4 and spans files e and f (Q1).
  const r = wallRect(l, parseWall("e3h")!);
  const e3 = squareCenter(l, parseSquare("e3")!);
  const e4 = squareCenter(l, parseSquare("e4")!);
  const f3 = squareCenter(l, parseSquare("f3")!);
  assert.ok(r.y > e4.y && r.y + r.height < e3.y, "between ranks 3 and 4");
  assert.ok(r.x < e3.x && r.x + r.width > f3.x, "spans e and f");
  assert.equal(r.height, l.gap);
});

test("wallAt: a pointer in a groove proposes the wall there, at every anchor and both orientations, either side up", () => {
  for (const flipped of [false, true]) {
    const l = q(flipped);
    for (let f = 0; f < 8; f++) for (let r = 0; r < 8; r++) for (const o of ["h", "v"] as const) {
      const w = { anchor: { file: f, rank: r }, orientation: o };
      const c = wallCenter(l, w);
      // A little off the crossing, along the wall: in the groove proper.
      const along = l.cell / 4;
      const p = o === "h" ? { x: c.x - along, y: c.y } : { x: c.x, y: c.y - along };
      const got = wallAt(l, p.x, p.y, o === "h" ? "v" : "h", true);
      assert.deepEqual(got, w, `${wallName(w)} flipped=${flipped}`);
      // At the crossing itself the preferred orientation wins.
      assert.deepEqual(wallAt(l, c.x, c.y, o, true), w);
    }
  }
});

test("wallAt: over a cell nothing when strict, the nearest crossing otherwise; edges stay on the board", () => {
  const l = q(false);
  const c = squareCenter(l, parseSquare("a1")!);
  assert.equal(wallAt(l, c.x, c.y, "h", true), undefined);
  assert.deepEqual(wallAt(l, c.x + 10, c.y - 10, "h", false), { anchor: { file: 0, rank: 0 }, orientation: "h" });
  const i9 = squareCenter(l, parseSquare("i9")!);
  assert.deepEqual(wallAt(l, i9.x, i9.y, "v", false), { anchor: { file: 7, rank: 7 }, orientation: "v" });
  assert.equal(wallAt(l, -100, -100, "h", false), undefined);
});

test("pointerWall: a click a pixel from its hover, across a column's centre in a groove, picks the wall the hover drew", () => {
  // Chromium reports a hover at a fraction of a pixel (here 0.4 past the
  // centre) and the click at the whole pixel below (0.6 before it): by
  // wallAt alone the two pick neighbouring walls (e4h, then d4h).
  const name = (w: Wall | undefined) => (w ? wallName(w) : "none");
  for (const flipped of [false, true]) {
    const l = q(flipped);
    for (let line = 0; line < 8; line++) for (let centre = 0; centre < 9; centre++) for (const o of ["h", "v"] as const) {
      // The groove after the line-th row (h) or column (v) of cells, at the
      // centre of the centre-th cell along it.
      const mid = l.margin + line * (l.cell + l.gap) + l.cell + l.gap / 2;
      const along = l.margin + centre * (l.cell + l.gap) + l.cell / 2;
      const at = (d: number) => (o === "h" ? { x: along + d, y: mid } : { x: mid, y: along + d });
      const hoverAt = at(0.4);
      const clickAt = at(-0.6);
      const hovered = pointerWall(l, hoverAt.x, hoverAt.y, o, true);
      assert.ok(hovered && hovered.orientation === o);
      const what = `${o} groove ${line}, cell ${centre}, flipped=${flipped}`;
      if (centre > 0 && centre < 8) {
        assert.notEqual(name(wallAt(l, clickAt.x, clickAt.y, o, true)), name(hovered), `${what}: the two points are either side of the line`);
      }
      for (const strict of [true, false]) {
        assert.equal(name(pointerWall(l, clickAt.x, clickAt.y, o, strict, hovered, 1.5)), name(hovered), `${what}: the click keeps the hovered wall`);
      }
      // Farther than the slack, the pointer picks the wall where it is.
      const far = at(-8);
      assert.equal(name(pointerWall(l, far.x, far.y, o, true, hovered, 1.5)), name(wallAt(l, far.x, far.y, o, true)), `${what}: far off`);
    }
  }
  // Over a square, strict, nothing: the wall shown does not follow the pointer off the groove.
  const l = q(false);
  const c = squareCenter(l, parseSquare("e5")!);
  assert.equal(pointerWall(l, c.x, c.y, "h", true, parseWall("e4h")!, 1.5), undefined);
});

test("nearestWall: the fewest cursor steps and turns away, the first listed among the nearest, none from none", () => {
  const w = (s: string) => parseWall(s)!;
  const name = (x: Wall | undefined) => (x ? wallName(x) : "none");
  assert.equal(name(nearestWall(w("e2h"), ["a1h", "e4h", "e3v", "e1h", "e3h"].map(w))), "e1h", "one step, listed before e3h");
  assert.equal(name(nearestWall(w("e2h"), ["a1h", "e4h", "e3v"].map(w))), "e4h", "two steps and a step with a turn tie: the first listed");
  assert.equal(name(nearestWall(w("e2h"), ["a1h", "f3v", "e2v"].map(w))), "e2v", "a turn is one key");
  assert.equal(name(nearestWall(w("e2h"), [])), "none");
});

test("walls conflict when they overlap or cross (Q3.2, Q3.3), not when they touch", () => {
  const w = (s: string) => parseWall(s)!;
  assert.ok(wallsConflict(w("e3h"), w("e3h")));
  assert.ok(wallsConflict(w("e3h"), w("f3h")));
  assert.ok(wallsConflict(w("e3h"), w("d3h")));
  assert.ok(!wallsConflict(w("e3h"), w("g3h")));
  assert.ok(!wallsConflict(w("e3h"), w("e4h")));
  assert.ok(wallsConflict(w("e3h"), w("e3v")));
  assert.ok(!wallsConflict(w("e3h"), w("f3v")), "a T is legal");
  assert.ok(wallsConflict(w("c5v"), w("c6v")));
  assert.ok(!wallsConflict(w("c5v"), w("d5v")));
});

test("the keyboard cursor moves on screen and stays on the board", () => {
  const d = { files: 9, ranks: 9 };
  assert.deepEqual(moveCursor({ file: 4, rank: 0 }, d, false, 0, -1), { file: 4, rank: 1 }, "up is towards rank 9 for white");
  assert.deepEqual(moveCursor({ file: 4, rank: 0 }, d, true, 0, -1), { file: 4, rank: 0 }, "up is off the board for black on e1");
  assert.deepEqual(moveCursor({ file: 0, rank: 0 }, d, false, -1, 0), { file: 0, rank: 0 });
  assert.deepEqual(moveCursor({ file: 0, rank: 0 }, d, true, -1, 0), { file: 1, rank: 0 });
});
