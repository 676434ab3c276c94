// The boards drawn from fixed positions, without a server: the SVG has
// what the position has (and, for Banqi, nothing a face-down square could
// give away), and screenshots of each game's board are saved to look at.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { Browser } from "playwright-core";
import { BanqiPiece, Game, PlySchema, Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { renderBoard, capturedSvg } from "../src/board";
import { replayViews } from "../src/replay";
import { launch, shot, webDir } from "./harness";

let browser: Browser;
let cleanup: () => Promise<void>;
before(async () => ({ browser, cleanup } = await launch()));
after(async () => cleanup?.());

const css = readFileSync(join(webDir, "dist", "app.css"), "utf8");
const plies = (list: string[], revealed: Record<number, BanqiPiece> = {}) =>
  list.map((n, i) => create(PlySchema, { number: i + 1, seat: i % 2 ? Seat.SECOND : Seat.FIRST, notation: n, revealed: revealed[i + 1] ?? BanqiPiece.UNSPECIFIED }));

async function render(name: string, markup: string, width = 640) {
  const page = await browser.newPage({ viewport: { width: width + 40, height: width + 40 } });
  page.setDefaultTimeout(120_000);
  await page.setContent(`<!doctype html><style>${css}</style><body style="padding:20px"><div class="board-box" style="width:${width}px">${markup}</div></body>`);
  await shot(page, name);
  return page;
}

test("Quoridor: pawns, walls in their placer's colour, the last wall marked, destinations, a preview", async () => {
  const views = replayViews(Game.QUORIDOR, "standard", plies(["e2", "e8", "e3h", "d7v", "e4v", "c6h"]), "");
  const view = views.at(-1)!;
  const markup = renderBoard({ view, flipped: false, destinations: ["d2", "f2", "e1"], selected: "e2", preview: { wall: { anchor: { file: 1, rank: 1 }, orientation: "v" }, state: "invalid" } });
  const page = await render("board-quoridor", markup);
  assert.equal(await page.locator("rect.wall").count(), 4);
  assert.equal(await page.locator("rect.last-wall").count(), 1);
  assert.equal(await page.locator("rect.last-wall").getAttribute("data-wall"), "c6h");
  assert.equal(await page.locator("circle.dest").count(), 3);
  assert.equal(await page.locator("g.pawn").count(), 2);
  assert.equal(await page.locator(".wall-preview.invalid").count(), 1);
  const flipped = await render("board-quoridor-black", renderBoard({ view: views[2], flipped: true }));
  assert.equal(await flipped.locator("svg").getAttribute("data-flipped"), "true");
});

test("Corners: both homes and every piece, the last path drawn", async () => {
  const view = replayViews(Game.CORNERS, "classic-3x3", plies(["c3-d3", "f6-e6", "c2-c4"]), "").at(-1)!;
  const page = await render("board-corners", renderBoard({ view, flipped: false, selected: "b3", destinations: ["b4", "d5"] }));
  assert.equal(await page.locator("g.piece.white").count(), 9);
  assert.equal(await page.locator("g.piece.black").count(), 9);
  assert.equal(await page.locator(".home-first").count(), 9);
  assert.equal(await page.locator("polyline.last-path").count(), 1);
  const halma = replayViews(Game.CORNERS, "halma-16x16", [], "")[0];
  const hp = await render("board-corners-halma", renderBoard({ view: halma, flipped: false }));
  assert.equal(await hp.locator("g.piece").count(), 38);
});

test("Banqi: face-down discs carry no identity; revealed pieces and captures are drawn", async () => {
  const layout = "PpKkAaBbRrNnCc" + "P".repeat(18);
  const view = replayViews(Game.BANQI, "standard", plies(["a1", "b1", "a1xb1", "c1", "d1", "b1-a1"]), layout).at(-1)!;
  const markup = renderBoard({ view, flipped: false, selected: "c1", destinations: ["c2", "b1"] });
  const page = await render("board-banqi", markup, 720);
  assert.equal(await page.locator("g.face-down").count(), 28);
  assert.equal(await page.locator("g.revealed").count(), 3);
  // A face-down disc's markup is the same for every square: nothing to tell them apart.
  const downs = await page.locator("g.face-down").evaluateAll((els) => els.map((e) => e.innerHTML.replace(/[\d.]+/g, "N")));
  assert.equal(new Set(downs).size, 1);
  assert.equal(await page.locator("g.face-down text, g.face-down title, g.face-down [data-piece-kind]").count(), 0);
  const capt = await render("captured-row", capturedSvg([BanqiPiece.BLACK_SOLDIER, BanqiPiece.RED_HORSE]), 200);
  assert.equal(await capt.locator("g.revealed").count(), 2);
});
