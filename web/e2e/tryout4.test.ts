// What a new player met in a fourth tryout, each checked in the browser:
// the mouse places walls the same way with the Wall button on or off
// (hover draws, one click places) and a wall that can go where it is shown
// is named in the hint. Screenshots go to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { boxOf, clickHere, clickSquare, destinations, pointWall, startBot, waitTurn, walls } from "./play";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";

let browser: Browser;
let server: Server;
let closeBrowser: () => Promise<void>;

before(async () => {
  server = await serve();
  ({ browser, cleanup: closeBrowser } = await launch());
});
after(async () => {
  await closeBrowser?.();
  await server?.stop();
});

async function waitPly(page: Page, after: number): Promise<void> {
  await page.waitForFunction((n) => {
    const b = document.querySelector<HTMLElement>(".board-box");
    return !!b && (Number(b.dataset.plyCount) > n || b.dataset.status === "FINISHED");
  }, after);
}

async function hintIs(page: Page, text: string): Promise<void> {
  try {
    await page.waitForFunction((t) => document.querySelector(".board-tools .hint")?.textContent === t, text);
  } catch (err) {
    throw new Error(`the hint is ${JSON.stringify(await page.locator(".board-tools .hint").textContent())}, not ${JSON.stringify(text)}: ${err}`);
  }
}

test("with the Wall button on, the mouse previews the wall under it and one click places it, as without; a placeable wall is named in the hint", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Hoverer");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  let info = await waitTurn(page);
  assert.equal(info.flipped, false);
  // The Wall button on: hovering a groove draws the wall, one click places it.
  await page.click("#wall-mode");
  await page.waitForSelector("#wall-mode.on");
  await pointWall(page, "d7h", false);
  await page.waitForSelector(".board-box .wall-preview.valid");
  await hintIs(page, "Wall d7h: click to place it.");
  await shot(page, "60-wall-mode-hover");
  await clickHere(page);
  await waitPly(page, info.plyCount);
  assert.ok((await walls(page)).some((w) => w.anchor.file === 3 && w.anchor.rank === 6 && w.orientation === "h"), "one click placed d7h");
  // Without the button: the same, and the hint names the wall too.
  info = await waitTurn(page);
  assert.ok(!info.finished);
  await pointWall(page, "a3h", false);
  await page.waitForSelector(".board-box .wall-preview.valid");
  await hintIs(page, "Wall a3h: click to place it.");
  // The keys' cursor on a placeable wall: named, with Enter.
  await page.mouse.move(5, 5);
  await page.focus(".board-box");
  await page.keyboard.press("w");
  const cursor = page.locator(".board-box rect.kbd-cursor.valid");
  await cursor.waitFor();
  await hintIs(page, `Wall ${await cursor.getAttribute("data-wall")}: Enter to place it.`);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

/** playOne plays the first legal destination of the seat to move (Quoridor: a pawn step). */
async function playOne(page: Page): Promise<void> {
  const info = await waitTurn(page);
  await page.waitForSelector(".board-box circle.dest");
  const ds = await destinations(page);
  await clickSquare(page, Game.QUORIDOR, ds[0], info.flipped);
  await waitPly(page, info.plyCount);
}

/** lines is how many lines of text an element's words take. */
async function lines(page: Page, sel: string): Promise<number> {
  return page.locator(sel).evaluate((el) => {
    const r = document.createRange();
    r.selectNodeContents(el);
    const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
    return tops.size;
  });
}

test("on a phone the player bars keep 'to move' and 'away · 30 days to return' on a line each, and show the bot's level with its rating, in the game and the replay", async () => {
  const player = await newPlayer(browser, server.url);
  await signIn(player.page, "Gone Away");
  const matchId = await startBot(player.page, "Quoridor", { seat: "White (first)" });
  await playOne(player.page);
  await waitTurn(player.page);
  await player.ctx.close();
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await signIn(page, "Pocket Four");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForFunction(() => /to return$/.test(document.querySelector(".strip.turn .away")?.textContent ?? ""));
  await shot(page, "61-phone-bars-away");
  assert.equal(await lines(page, ".strip.turn .clock.none"), 1, "'to move' is on one line");
  assert.equal(await lines(page, ".strip.turn .away"), 1, "'away · 30 days to return' is on one line");
  for (const sel of [".strip.turn .clock.none", ".strip.turn .away", ".strip.turn .pname"]) {
    const b = await boxOf(page.locator(sel), sel);
    assert.ok(b.x >= 0 && b.x + b.width <= 390, `${sel} is on the screen (${b.x}+${b.width})`);
  }
  // Easy is the ladder's 0: no "rating 0" badge, and the name says the level.
  assert.equal(await page.locator(".strip .badge").count(), 0, "no badge for the Easy bot");
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
  assert.ok(widths.doc <= widths.view, `the page is no wider than the screen (${widths.doc} > ${widths.view})`);
  // The replay's badge says the same.
  await page.goto(`${server.url}/#/play`);
  await startBot(page, "Quoridor", { seat: "White (first)" });
  await playOne(page);
  await waitTurn(page);
  await page.tap("#resign");
  await page.tap("#resign-confirm");
  await page.tap(".result-card a:has-text('Replay')");
  await page.waitForSelector(".replay-nav");
  await page.waitForSelector(".strip .pname");
  assert.equal(await page.locator(".strip .badge").count(), 0, "the replay's Easy bot has no badge either");
  await shot(page, "62-phone-replay-badge");
  await ctx.close();
});

test("at a game's end the result dialog is open without a 'Show result' button beside it; closed, the button brings it back", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Finisher");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  await playOne(page);
  await waitTurn(page);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  await shot(page, "63-result-open");
  assert.equal(await page.locator(".game-actions button:has-text('Show result')").count(), 0, "no 'Show result' while the result shows");
  await page.click(".result-card button:has-text('Close')");
  await page.waitForSelector(".result-overlay", { state: "hidden" });
  const again = page.locator(".game-actions button:has-text('Show result')");
  await again.waitFor();
  await again.click();
  await page.waitForSelector(".result-card");
  assert.equal(await page.locator(".game-actions button:has-text('Show result')").count(), 0, "shown again, the button goes again");
  await ctx.close();
});

test("a signed-out visitor opening the Watch page is asked for a name to watch games, and goes on to them", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  ctx.setDefaultTimeout(120_000);
  const page = await ctx.newPage();
  await page.goto(`${server.url}/#/watch`);
  await page.waitForSelector("#name");
  assert.equal(await page.locator("form.signin label[for=name]").textContent(), "Choose a name to watch games as a guest");
  assert.equal(await page.locator("form.signin button[type=submit]").textContent(), "Watch games");
  await shot(page, "64-watch-signed-out");
  await page.fill("#name", "Looker On");
  await page.click("form.signin button[type=submit]");
  await page.waitForSelector("#live-list");
  assert.match(page.url(), /#\/watch$/);
  await ctx.close();
});
