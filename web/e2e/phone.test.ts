// Phone-sized screens (390x844, touch) in the browser: the sign-in's name
// field does not pop the keyboard up; the player bars keep White and
// Black, "to move" and "away · 30 days to return" on a line each, and the
// bot's level with its rating, in the game and the replay; Resign is on
// the first screen, under the bottom bar, with the board as wide as the
// screen (on a computer it stays in the side panel); the board's
// coordinates are about 10 px; the result shows under the board; the Watch
// page of a game whose player is away fits the screen. (The landing page,
// the lobby and walls by taps are in web.test.ts, the lobby's Play button
// in rooms.test.ts, Portuguese on a phone in i18n.test.ts.) Screenshots go
// to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boardBox, boxOf, playOne, plyEach, startBot, waitTurn } from "./play";

serveAndLaunch();

/** lines is how many lines of text an element's words take. */
async function lines(page: Page, sel: string): Promise<number> {
  return page.locator(sel).evaluate((el) => {
    const r = document.createRange();
    r.selectNodeContents(el);
    const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
    return tops.size;
  });
}

/**
 * actionsOnFirstScreen checks, with the page scrolled to its top, that the
 * game's Resign button is wholly on a 390x844 screen and nothing covers
 * it, and that the board keeps the screen's width (less the page's
 * margins): the actions come into view without scrolling, not by
 * shrinking the board.
 */
async function actionsOnFirstScreen(page: Page, what: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  const m = await page.evaluate(() => {
    const btn = document.querySelector<HTMLElement>("#resign")!;
    const b = btn.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    const board = document.querySelector(".board-box svg")!.getBoundingClientRect();
    return { scrollY: window.scrollY, top: b.top, bottom: b.bottom, left: b.left, right: b.right, vh: window.innerHeight, vw: window.innerWidth,
      hit: !!hit && btn.contains(hit), boardWidth: board.width };
  });
  assert.equal(m.vh, 844, "a 390x844 screen");
  assert.equal(m.scrollY, 0, `${what}: the page is at its top`);
  assert.ok(m.top >= 0 && m.bottom <= m.vh && m.left >= 0 && m.right <= m.vw,
    `${what}: Resign is on the first screen, without scrolling (its box ${Math.round(m.top)}-${Math.round(m.bottom)} px of ${m.vh})`);
  assert.ok(m.hit, `${what}: nothing covers Resign`);
  assert.ok(m.boardWidth >= 360, `${what}: the board keeps the screen's width (${m.boardWidth.toFixed(0)} px)`);
}

test("on a phone the name field does not pop the keyboard up, and both player bars keep White and Black", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await page.waitForSelector("#name");
  // The focus would be given a moment after the page is drawn: wait past it.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  assert.notEqual(await page.evaluate(() => document.activeElement?.id), "name", "the name field takes no focus on a phone");
  await shot(page, "phone-sign-in");
  await signIn(page, "Pocket");
  // The fullest bars: Corners with a clock (arrivals and clocks beside the names).
  await page.click(`label.game-card[data-game="Corners"]`);
  await page.click(`label.chip:has-text("Bot")`);
  await page.click(`label.chip[data-level="Easy"]`);
  await page.click("label.chip:has-text('3+2')");
  await page.click("label.chip:has-text('White (first)')");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  await waitTurn(page);
  assert.equal(await page.locator("#offer-draw").count(), 0, "no draw offer to a bot: it would never answer");
  // With a clock the first ply has seconds: they count down beside the frozen clock.
  const firstPly = page.locator(".bottom-strip .first-ply");
  await firstPly.waitFor();
  await page.waitForFunction(() => /^\d+ s$/.test(document.querySelector(".bottom-strip .first-ply")?.textContent ?? ""));
  assert.match((await firstPly.getAttribute("aria-label")) ?? "", /^first ply within \d+ s$/);
  for (const [strip, colour] of [[".bottom-strip", "White"], [".top-strip", "Black"]]) {
    const label = page.locator(`${strip} .seat-colour`);
    assert.ok(await label.isVisible(), `${strip} shows its colour`);
    assert.equal(await label.textContent(), colour);
    const box = await boxOf(label, `${strip}'s colour`);
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `${strip}'s label is on the screen (${box.x}+${box.width})`);
  }
  await shot(page, "phone-strips");
  await actionsOnFirstScreen(page, "Corners with a clock");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("on a phone the player bars keep 'to move' and 'away · 30 days to return' on a line each, and show the bot's level with its rating, in the game and the replay", async () => {
  const player = await newPlayer(browser, server.url);
  await signIn(player.page, "Gone Away");
  const matchId = await startBot(player.page, "Quoridor", { seat: "White (first)" });
  await playOne(player.page);
  await waitTurn(player.page);
  // On a computer the actions stay at the end of the side panel, under the moves.
  assert.equal(await player.page.locator(".side-col .game-panel ol.moves + .game-actions #resign").count(), 1, "on a computer Resign is in the side panel, under the moves");
  await player.ctx.close();
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await signIn(page, "Pocket Four");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForFunction(() => /to return$/.test(document.querySelector(".strip.turn .away")?.textContent ?? ""));
  await shot(page, "phone-bars-away");
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
  for (let i = 0; i < 4; i++) {
    await playOne(page);
    await waitTurn(page);
  }
  await shot(page, "phone-actions");
  await actionsOnFirstScreen(page, "Quoridor after four plies each");
  await page.tap("#resign");
  await page.tap("#resign-confirm");
  await page.tap(".result-card a:has-text('Replay')");
  await page.waitForSelector(".replay-nav");
  await page.waitForSelector(".strip .pname");
  assert.equal(await page.locator(".strip .badge").count(), 0, "the replay's Easy bot has no badge either");
  await shot(page, "phone-replay-badge");
  await ctx.close();
});

test("on a phone the board's coordinates are about 10 px, and the result shows under the board, not over it or under the header", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await signIn(page, "Pocket Two");
  await page.click(`label.game-card[data-game="Banqi"]`);
  await page.click(`label.chip:has-text("Bot")`);
  await page.click(`label.chip[data-level="Easy"]`);
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  await waitTurn(page);
  const sizes = await page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>(".board-box svg")!;
    const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll<SVGTextElement>("text.coord")].map((t) => parseFloat(getComputedStyle(t).fontSize) * k);
  });
  assert.ok(sizes.length >= 12, "the coordinates are drawn");
  assert.ok(Math.min(...sizes) >= 9.5, `the coordinates are drawn at least 9.5 px (${Math.min(...sizes).toFixed(1)} px)`);
  const board = await boxOf(page.locator(".board-box svg"), "the board");
  // Read in one go: the board may be drawn again (a ply, a clock) between
  // one coordinate's box and the next.
  const boxes = await page.evaluate(() => [...document.querySelectorAll<SVGTextElement>(".board-box svg text.coord")].map((t) => {
    const r = t.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }));
  for (const b of boxes) {
    assert.ok(b && b.x >= board.x - 0.5 && b.x + b.width <= board.x + board.width + 0.5 && b.y >= board.y - 0.5 && b.y + b.height <= board.y + board.height + 0.5, "a coordinate stays on the board");
  }
  await shot(page, "phone-coords");
  // A ply each first: a resignation before that aborts the game (no loser).
  await plyEach([page]);
  await page.click("#resign");
  await page.click("#resign-confirm");
  const card = page.locator(".result-card");
  await card.waitFor();
  await card.scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  const c = await boxOf(card, "the result");
  const b = await boxOf(page.locator(".board-box svg"), "the board");
  const header = await boxOf(page.locator("header.top"), "the header");
  assert.ok(c.y >= b.y + b.height - 0.5, `the result is under the board, not over it (card top ${c.y}, board bottom ${b.y + b.height})`);
  assert.ok(c.y >= header.y + header.height - 0.5, `the result is not under the header (card top ${c.y}, header bottom ${header.y + header.height})`);
  assert.ok(c.x >= 0 && c.x + c.width <= 390, `the result fits the screen's width (${c.x}+${c.width})`);
  assert.match((await card.textContent()) ?? "", /You lost/);
  await shot(page, "phone-result");
  await ctx.close();
});

test("on a phone the Watch page of a game whose player is disconnected fits the screen: no sideways scrolling", async () => {
  const player = await newPlayer(browser, server.url);
  await signIn(player.page, "Leaver");
  const matchId = await startBot(player.page, "Quoridor", { seat: "White (first)" });
  await playOne(player.page);
  await waitTurn(player.page);
  // The player goes away on their move: their strip says both "disconnected" and "to move".
  await player.ctx.close();
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await signIn(page, "Onlooker");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForSelector(".board-box svg");
  await page.waitForSelector(".strip.turn .away", { timeout: 60_000 });
  assert.match((await page.locator(".strip.turn .clock.none").textContent()) ?? "", /to move/);
  // A game without a clock keeps the seat for 30 days: "away", in grey, the window in days.
  await page.waitForFunction(() => /to return$/.test(document.querySelector(".strip.turn .away")?.textContent ?? ""));
  const away = page.locator(".strip.turn .away");
  assert.match((await away.textContent()) ?? "", /^away · (29|30) days to return$/);
  assert.ok(await away.evaluate((el) => el.classList.contains("long")), "a window of days is not the red of a short one");
  await shot(page, "phone-watch-disconnected");
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
  assert.ok(widths.doc <= widths.view, `the page is no wider than the screen (${widths.doc} > ${widths.view})`);
  const col = await boxOf(page.locator(".board-col"), "the board's column");
  assert.ok(col.x >= 0 && col.x + col.width <= 390, `the board's column fits the screen (${col.x}+${col.width})`);
  const board = await boardBox(page);
  assert.ok(board.x >= 0 && board.x + board.width <= 390, `the board fits the screen (${board.x}+${board.width})`);
  for (const sel of [".strip.turn .away", ".strip.turn .clock.none", "ol.moves"]) {
    const box = await page.locator(sel).boundingBox();
    if (box) assert.ok(box.x >= 0 && box.x + box.width <= 390, `${sel} is on the screen (${box.x}+${box.width})`);
  }
  await ctx.close();
});
