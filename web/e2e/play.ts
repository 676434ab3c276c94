// Playing through the page as a person does: reading the board from the
// DOM (the SVG's data attributes) and clicking squares and grooves at the
// points the client's own geometry puts them.
import type { Locator, Page } from "playwright-core";
import { layoutFor } from "../src/board";
import { squareCenter, wallCenter, parseSquare, parseWall, type Layout, type Wall } from "../src/geometry";
import { create } from "@bufbuild/protobuf";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { GameViewSchema, QuoridorBoardSchema, CornersBoardSchema, BanqiBoardSchema } from "../src/gen/tabuleiro/game/v1/view_pb";

export interface BoardInfo {
  acting: boolean;
  finished: boolean;
  plyCount: number;
  flipped: boolean;
}

export async function boardInfo(page: Page): Promise<BoardInfo> {
  return page.evaluate(() => {
    const b = document.querySelector<HTMLElement>(".board-box")!;
    const svg = b.querySelector("svg");
    return {
      acting: b.dataset.acting === "yes",
      finished: b.dataset.status === "FINISHED",
      plyCount: Number(b.dataset.plyCount ?? "0"),
      flipped: svg?.getAttribute("data-flipped") === "true",
    };
  });
}

/** waitTurn waits until the page may play, or the game is over. */
export async function waitTurn(page: Page, timeout = 120_000): Promise<BoardInfo> {
  await page.waitForFunction(() => {
    const b = document.querySelector<HTMLElement>(".board-box");
    return b && b.querySelector("svg") && (b.dataset.acting === "yes" || b.dataset.status === "FINISHED") && !b.classList.contains("busy");
  }, undefined, { timeout });
  return boardInfo(page);
}

export function layout(game: Game, flipped: boolean, size = 8): Layout {
  const board =
    game === Game.QUORIDOR ? { case: "quoridor" as const, value: create(QuoridorBoardSchema) }
    : game === Game.CORNERS ? { case: "corners" as const, value: create(CornersBoardSchema, { size }) }
    : { case: "banqi" as const, value: create(BanqiBoardSchema) };
  return layoutFor(create(GameViewSchema, { game, board }), flipped);
}

/** boxOf is the box of what locator finds. The page draws the board and
 * its strips anew on every event: between two drawings an element has no
 * box for a moment, so it asks again once the element is visible. */
export async function boxOf(loc: Locator, what: string): Promise<{ x: number; y: number; width: number; height: number }> {
  for (let i = 0; i < 50; i++) {
    await loc.waitFor({ state: "visible" });
    const box = await loc.boundingBox();
    if (box) return box;
  }
  throw new Error(`${what} never had a box: it is not on the page`);
}

/** boardBox is the board's box on the page. */
export async function boardBox(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  return boxOf(page.locator(".board-box svg"), "the board");
}

/** toPage is where a point of the board (in the SVG's user units) is on the page, in CSS pixels. */
export async function toPage(page: Page, p: { x: number; y: number }): Promise<{ x: number; y: number }> {
  const svg = page.locator(".board-box svg");
  const box = await boardBox(page);
  const vb = (await svg.getAttribute("viewBox"))!.split(" ").map(Number);
  const k = box.width / vb[2];
  return { x: box.x + p.x * k, y: box.y + p.y * k };
}

export async function clickSquare(page: Page, game: Game, sq: string, flipped: boolean): Promise<void> {
  const l = layout(game, flipped);
  const p = await toPage(page, squareCenter(l, parseSquare(sq)!));
  await page.mouse.click(p.x, p.y);
}

/** pointWall moves the mouse into the groove of a wall, a little off its centre along it. */
export async function pointWall(page: Page, wall: string, flipped: boolean): Promise<void> {
  const l = layout(Game.QUORIDOR, flipped);
  const w = parseWall(wall)!;
  const c = wallCenter(l, w);
  const along = l.cell / 4;
  const p = await toPage(page, w.orientation === "h" ? { x: c.x - along, y: c.y } : { x: c.x, y: c.y - along });
  await page.mouse.move(p.x, p.y, { steps: 3 });
}

export async function clickHere(page: Page): Promise<void> {
  await page.mouse.down();
  await page.mouse.up();
}

export async function destinations(page: Page): Promise<string[]> {
  return page.locator(".board-box circle.dest").evaluateAll((els) => els.map((e) => e.getAttribute("data-dest")!));
}

export async function walls(page: Page): Promise<Wall[]> {
  const names = await page.locator(".board-box rect.wall").evaluateAll((els) => els.map((e) => e.getAttribute("data-wall")!));
  return names.map((n) => parseWall(n)!);
}

export async function pawns(page: Page): Promise<{ white: string; black: string }> {
  const white = await page.locator(".board-box g.pawn.white").getAttribute("data-pawn");
  const black = await page.locator(".board-box g.pawn.black").getAttribute("data-pawn");
  return { white: white!, black: black! };
}

/** distance is the number of steps from sq to the goal rank with the walls (pawns ignored, Q3.4). */
export function distance(sq: string, goalRank: number, ws: Wall[]): number {
  const start = parseSquare(sq)!;
  const blocked = (f: number, r: number, df: number, dr: number): boolean => ws.some((w) => {
    const a = w.anchor;
    if (dr !== 0) {
      // crossing between rank r and r+dr: a horizontal wall at rank min(r, r+dr) spanning file f
      const lo = Math.min(r, r + dr);
      return w.orientation === "h" && a.rank === lo && (a.file === f || a.file === f - 1);
    }
    const lo = Math.min(f, f + df);
    return w.orientation === "v" && a.file === lo && (a.rank === r || a.rank === r - 1);
  });
  const seen = new Map<string, number>([[`${start.file},${start.rank}`, 0]]);
  const queue = [start];
  while (queue.length) {
    const q = queue.shift()!;
    const d = seen.get(`${q.file},${q.rank}`)!;
    if (q.rank === goalRank - 1) return d;
    for (const [df, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const f = q.file + df, r = q.rank + dr;
      if (f < 0 || f > 8 || r < 0 || r > 8 || blocked(q.file, q.rank, df, dr)) continue;
      const k = `${f},${r}`;
      if (!seen.has(k)) {
        seen.set(k, d + 1);
        queue.push({ file: f, rank: r });
      }
    }
  }
  return 99;
}

/**
 * wallCursorTo moves the keyboard's wall cursor (wall mode on) from the wall
 * it is drawn on to `wall`: R to turn it, then the arrows.
 */
export async function wallCursorTo(page: Page, wall: string, flipped: boolean): Promise<void> {
  const from = parseWall((await page.locator(".board-box rect.kbd-cursor").getAttribute("data-wall")) ?? "")!;
  const to = parseWall(wall)!;
  if (from.orientation !== to.orientation) await page.keyboard.press("r");
  for (let f = from.anchor.file; f !== to.anchor.file; f += Math.sign(to.anchor.file - f)) {
    await page.keyboard.press(to.anchor.file > f !== flipped ? "ArrowRight" : "ArrowLeft");
  }
  for (let r = from.anchor.rank; r !== to.anchor.rank; r += Math.sign(to.anchor.rank - r)) {
    await page.keyboard.press(to.anchor.rank > r !== flipped ? "ArrowUp" : "ArrowDown");
  }
  await page.waitForSelector(`.board-box rect.kbd-cursor[data-wall="${wall}"]`);
}

/** tapWall taps a wall's groove on a touch screen (a little off its centre, along it). */
export async function tapWall(page: Page, wall: string, flipped: boolean): Promise<void> {
  const l = layout(Game.QUORIDOR, flipped);
  const w = parseWall(wall)!;
  const c = wallCenter(l, w);
  const along = l.cell / 4;
  const p = await toPage(page, w.orientation === "h" ? { x: c.x - along, y: c.y } : { x: c.x, y: c.y - along });
  await page.touchscreen.tap(p.x, p.y);
}

/** startBot starts a game against the easy bot from the lobby, the seat and clock chosen by their chips' labels (no clock unless given), and returns its match id. */
export async function startBot(page: Page, game: string, opts: { seat?: string; clock?: string } = {}): Promise<string> {
  await page.click(`label.game-card[data-game="${game}"]`);
  await page.click(`label.chip:has-text("Bot")`);
  await page.click(`label.chip[data-level="Easy"]`);
  if (opts.seat) await page.click(`label.chip:has-text("${opts.seat}")`);
  await page.click(`label.chip:has-text("${opts.clock ?? "No clock"}")`);
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  return page.url().split("/").pop()!;
}

/**
 * plyEach plays on until each seat has made a ply, or the game is over: a
 * game ended before then (by resignation, on time, by abandonment or an
 * agreed draw) is aborted, with no winner (lichess's rule). Whichever of
 * pages is to move plays: its pawn steps to a dot (Quoridor) or it
 * reveals a face-down piece (Banqi); a bot's ply comes by itself.
 */
export async function plyEach(pages: Page[]): Promise<void> {
  const state = (p: Page) => p.evaluate(() => {
    const b = document.querySelector<HTMLElement>(".board-box");
    return {
      plies: Number(b?.dataset.plyCount ?? "0"),
      finished: b?.dataset.status === "FINISHED",
      acting: !!b?.querySelector("svg") && b.dataset.acting === "yes" && !b.classList.contains("busy"),
    };
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const now = await Promise.all(pages.map(state));
    if (now.some((s) => s.finished) || Math.max(...now.map((s) => s.plies)) >= 2) return;
    if (Date.now() > deadline) throw new Error(`plyEach: no ply each after 120 s: ${JSON.stringify(now)}`);
    const i = now.findIndex((s) => s.acting);
    if (i < 0) {
      await pages[0].waitForTimeout(100);
      continue;
    }
    const page = pages[i];
    const info = await boardInfo(page);
    await page.waitForSelector(".board-box circle.dest, .board-box g.face-down");
    if (await page.locator(".board-box g.pawn").count()) {
      const ds = await destinations(page);
      await clickSquare(page, Game.QUORIDOR, ds[0], info.flipped);
    } else {
      const down = await page.locator(".board-box g.face-down").evaluateAll((els) => els.map((e) => e.getAttribute("data-sq-piece")!));
      await clickSquare(page, Game.BANQI, down[0], info.flipped);
    }
    // A click that lands while the board is drawn again (a busy machine)
    // may meet no square: the state is read again and the ply clicked
    // again, rather than waited for forever.
    await page.waitForFunction((n) => {
      const b = document.querySelector<HTMLElement>(".board-box");
      return !!b && (Number(b.dataset.plyCount) > n || b.dataset.status === "FINISHED");
    }, info.plyCount, { timeout: 15_000 }).catch(() => {});
  }
}

/** waitPly waits until the board has more than `after` plies, or the game is over. */
export async function waitPly(page: Page, after: number): Promise<void> {
  await page.waitForFunction((n) => {
    const b = document.querySelector<HTMLElement>(".board-box");
    return !!b && (Number(b.dataset.plyCount) > n || b.dataset.status === "FINISHED");
  }, after);
}

/** playOne plays the first legal destination of the seat to move (Quoridor: a pawn step). */
export async function playOne(page: Page): Promise<void> {
  const info = await waitTurn(page);
  await page.waitForSelector(".board-box circle.dest");
  const ds = await destinations(page);
  await clickSquare(page, Game.QUORIDOR, ds[0], info.flipped);
  await waitPly(page, info.plyCount);
}

/** startLocal starts a game for two players at one device (the host plays white, its first such game). */
export async function startLocal(page: Page, game: string, variant?: string): Promise<string> {
  await page.click(`label.game-card[data-game="${game}"]`);
  if (variant) await page.selectOption("#variant", variant);
  await page.click(`label.chip:has-text("Two players, one device")`);
  await page.click("label.chip:has-text('No clock')");
  await page.click("#start");
  await page.waitForURL(/#\/local\//);
  await waitTurn(page);
  return page.url().split("/").pop()!;
}

/** tokens are the page's two players at one device: its own, and its partner's. */
export async function tokens(page: Page): Promise<{ me: string; partner: string; playerId: string }> {
  return page.evaluate(() => {
    const me = JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}");
    const partner = JSON.parse(localStorage.getItem("tabuleiro.partner") ?? "{}");
    return { me: me.token as string, partner: partner.token as string, playerId: me.playerId as string };
  });
}

/**
 * matchRpc calls the match API of the server at url as `who` (a page's
 * signed-in player, or a token), as the client does (Connect, JSON).
 */
export async function matchRpc(url: string, who: Page | string, method: string, body: object): Promise<any> {
  const token = typeof who === "string" ? who
    : await who.evaluate(() => JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}").token as string);
  const r = await fetch(`${url}/tabuleiro.match.v1.MatchService/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const j = await r.json();
  if (!r.ok) throw new Error(`${method}: ${JSON.stringify(j)}`);
  return j;
}

/** heading is what each list's page shows once it is drawn (not the page before it). */
const listHeading: Record<string, string> = { "#/history": "Your finished games", "#/stats": "Against the bots" };

/** listText is the text of a page's list (history, stats) once it is drawn and loaded. */
export async function listText(page: Page, route: "#/history" | "#/stats"): Promise<string> {
  await page.click(`nav a[href='${route}']`);
  await page.waitForURL(new RegExp(route.replace("/", "\\/")));
  await page.waitForFunction((want) => {
    const main = document.querySelector("main");
    return !!main?.textContent?.includes(want) && !main.querySelector(".muted")?.textContent?.match(/Loading/);
  }, listHeading[route]);
  return (await page.locator("main").innerText()).trim();
}

/**
 * resignedBotGame has page play one ply of a Quoridor game against a bot
 * as White, resign, and go back to the lobby; it returns the history and
 * stats texts once the game is listed (the recorder writes it a moment
 * after the end).
 */
export async function resignedBotGame(page: Page): Promise<{ history: string; stats: string }> {
  await startBot(page, "Quoridor", { seat: "White (first)" });
  await plyEach([page]);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector("#result-line");
  await page.click("nav a[href='#/play']");
  await page.waitForSelector("#start");
  for (;;) {
    const history = await listText(page, "#/history");
    if (history.includes("Bot")) return { history, stats: await listText(page, "#/stats") };
    await page.waitForTimeout(200);
  }
}
