// What a new player met in a first tryout (issue 19), each checked in the
// browser: the name field's rule in words under it (no browser bubble), no
// keyboard popping up on a phone and the seat colours kept in its player
// bars, one's own game from the Watch list, and the replay's ply controls
// on screen at 1280x800. Screenshots go to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { boardBox, boxOf, clickSquare, destinations, startBot, waitTurn } from "./play";

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

/** playOne plays the first legal destination of the seat to move (Quoridor: a pawn step). */
async function playOne(page: Page): Promise<void> {
  const info = await waitTurn(page);
  await page.waitForSelector(".board-box circle.dest");
  const ds = await destinations(page);
  await clickSquare(page, Game.QUORIDOR, ds[0], info.flipped);
  await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) > n, info.plyCount);
}

test("a name the lobby refuses is explained under the field, by the page, before any request", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  let asked = 0;
  page.on("request", (r) => {
    if (r.url().includes("SignInGuest")) asked++;
  });
  assert.ok(await page.evaluate(() => document.activeElement?.id === "name"), "with a mouse, the name field has the focus");
  await page.fill("#name", "!Ana");
  await page.click("form.signin button[type=submit]");
  const err = page.locator("#name-error");
  await err.waitFor({ state: "visible" });
  const text = (await err.textContent()) ?? "";
  assert.match(text, /^"!" cannot be in a name\. Names may use letters, digits, spaces, - _ and \. \(2 to 24 characters\)\.$/, text);
  assert.doesNotMatch(text, /byte|display_name/);
  // No browser bubble over it: the form does not ask the browser to validate.
  assert.equal(await page.locator("form.signin[novalidate]").count(), 1);
  assert.equal(await page.locator("#name[aria-invalid=true]").count(), 1);
  // The message sits right under the field, inside the form.
  const field = await boxOf(page.locator("#name"), "the name field");
  const box = await boxOf(err, "the name's message");
  assert.ok(box.y >= field.y + field.height && box.y - (field.y + field.height) < 40, `the message is under the field (${field.y + field.height} → ${box.y})`);
  await shot(page, "40-name-refused");
  // Too short is said as such; fixing the name clears the message as it is typed.
  await page.fill("#name", "A");
  assert.match((await err.textContent()) ?? "", /at least 2 characters/);
  await page.fill("#name", "Ana");
  assert.equal(await err.textContent(), "");
  assert.equal(asked, 0, "nothing was sent for the refused names");
  await page.click("form.signin button[type=submit]");
  await page.waitForSelector("#start");
  assert.equal(asked, 1);
  await ctx.close();
});

test("on a phone the name field does not pop the keyboard up, and both player bars keep White and Black", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await page.waitForSelector("#name");
  // The focus would be given a moment after the page is drawn: wait past it.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  assert.notEqual(await page.evaluate(() => document.activeElement?.id), "name", "the name field takes no focus on a phone");
  await shot(page, "41-phone-sign-in");
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
  await shot(page, "42-phone-strips");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("one's own game from the Watch list: a way back to the seat, never one's own seat in red as disconnected", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Owner");
  const matchId = await startBot(page, "Quoridor", { seat: "White (first)" });
  await playOne(page);
  await page.click("nav a[href='#/watch']");
  const row = page.locator(`#live-list .summary[data-match="${matchId}"]`);
  await row.waitFor({ timeout: 60_000 });
  assert.equal(await row.locator("a").getAttribute("href"), `#/game/${matchId}`, "the list's link takes one's own seat");
  assert.equal(await row.locator("a").textContent(), "Your game");
  await shot(page, "43-watch-list-own-game");
  // Opened as a spectator anyway (a link kept from before): the seat is
  // one's own, away from the board, with the way back.
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForSelector(".board-box svg");
  await page.waitForSelector(".bottom-strip .away.mine, .top-strip .away.mine", { timeout: 60_000 });
  assert.equal(await page.locator(".strip .away:not(.mine)").count(), 0, "no seat says disconnected");
  assert.match((await page.locator(".strip .away.mine").textContent()) ?? "", /^away from the board/);
  assert.equal(await page.locator(".strip:has(.away.mine) .you").count(), 1, "the seat is marked as one's own");
  assert.match((await page.locator("#status-line").textContent()) ?? "", /This is your game/);
  await shot(page, "44-watch-own-game");
  await page.click("#take-seat");
  await page.waitForURL(new RegExp(`#/game/${matchId}$`));
  const info = await waitTurn(page);
  assert.ok(info.acting && !info.finished, "back in the seat, to move");
  await page.waitForFunction(() => !document.querySelector(".strip .away"));
  await page.click("#resign");
  await page.click("#resign-confirm");
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
  await shot(page, "45-phone-watch-disconnected");
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

test("the replay at 1280x800 keeps its ply controls on the screen: the board fits the height", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "Replayer");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  await playOne(page);
  await playOne(page);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  await page.click(".result-card a:has-text('Replay')");
  await page.waitForSelector(".replay-nav");
  const nav = await boxOf(page.locator(".replay-nav"), "the ply controls");
  const board = await boardBox(page);
  assert.ok(nav.y + nav.height <= 800, `the ply controls end at ${nav.y + nav.height}, within 800`);
  assert.ok(board.width >= 450, `the board is still large (${board.width})`);
  const total = Number(/of (\d+)/.exec((await page.locator(".counter").textContent()) ?? "")?.[1]);
  assert.ok(total >= 3, `the record has the plies (${total})`);
  await page.click("#last");
  await page.waitForSelector(`.counter:has-text('Ply ${total} of ${total}')`);
  await page.click("#prev");
  await page.waitForSelector(`.counter:has-text('Ply ${total - 1} of ${total}')`);
  await shot(page, "45-replay-1280x800");
  // A tall window still gets the big board.
  await page.setViewportSize({ width: 1280, height: 1100 });
  const tall = await boardBox(page);
  assert.ok(tall.width > board.width, `a taller window, a larger board (${board.width} → ${tall.width})`);
  await ctx.close();
});

test("a game at one device is not called off while its first ply is slow to come: no abort warning, a far first-ply deadline", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Couch");
  await page.click(`label.game-card[data-game="Corners"]`);
  await page.click(`label.chip:has-text("Two players, one device")`);
  await page.click("label.chip:has-text('No clock')");
  await page.click("#start");
  await page.waitForURL(/#\/local\//);
  await waitTurn(page);
  await page.waitForSelector(".hint:not(:empty)");
  const hint = (await page.locator(".hint").first().textContent()) ?? "";
  assert.doesNotMatch(hint, /aborted|called off/, `no abort warning at one device: ${JSON.stringify(hint)}`);
  assert.equal(await page.locator(".first-ply").count(), 0, "no first-ply countdown at one device");
  // The server's own deadline for the first ply: as far off as an untimed bot game's (days), not seconds.
  const matchId = page.url().split("/").pop()!;
  const left = await page.evaluate(async (id) => {
    const me = JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}");
    const r = await fetch("/tabuleiro.match.v1.MatchService/GetMatch", {
      method: "POST", headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${me.token}` }, body: JSON.stringify({ matchId: id }),
    });
    const m = (await r.json()).match;
    return Date.parse(m.firstPlyDeadline) - Date.now();
  }, matchId);
  assert.ok(left > 24 * 3600_000, `the first ply may come in days, not seconds (${Math.round(left / 1000)} s left)`);
  await shot(page, "46-one-device-waiting");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("bot levels are labelled with their ladder rating, in the level picker and on the bot's badge, at phone width too", async () => {
  for (const phone of [false, true]) {
    const { ctx, page } = await newPlayer(browser, server.url, { phone });
    await signIn(page, phone ? "Rui" : "Lia");
    await page.click(`label.game-card[data-game="Quoridor"]`);
    await page.selectOption("#variant", "standard");
    await page.click(`label.chip:has-text("Bot")`);
    // Quoridor standard was measured: every level shows its rating, with the interval in the tooltip.
    const hard = page.locator(`label.chip[data-level="Hard"]`);
    const rating = await hard.getAttribute("data-rating");
    assert.ok(rating !== null, "Hard has a rating in Quoridor standard");
    assert.equal((await hard.textContent())?.trim(), `Hard · rating ${rating}`);
    assert.match((await hard.getAttribute("title")) ?? "", /^ladder rating \(Elo scale, easy = 0\), 95% interval −?\d+(–| to )−?\d+$/);
    assert.equal((await page.locator(`label.chip[data-level="Easy"]`).textContent())?.trim(), "Easy · rating 0");
    // What the rating is, said on the page (a phone has no hover).
    assert.equal(await page.locator("#level-note").textContent(), "Ratings on the bots' ladder, an Elo scale where Easy is 0: the higher, the stronger.");
    // The four chips stay inside the panel at 390 px.
    const panel = await boxOf(page.locator(".play-panel"), "the panel");
    for (const l of ["Easy", "Medium", "Hard", "Expert"]) {
      const b = await boxOf(page.locator(`label.chip[data-level="${l}"]`), l);
      assert.ok(b.x >= panel.x && b.x + b.width <= panel.x + panel.width, `${l} inside the panel`);
    }
    await shot(page, phone ? "44-level-ratings-phone" : "44-level-ratings");
    if (!phone) {
      // A variant never measured: the names alone.
      await page.selectOption("#variant", "limit200");
      assert.equal((await page.locator(`label.chip[data-level="Hard"]`).textContent())?.trim(), "Hard");
      assert.equal(await page.locator(`label.chip[data-level="Hard"]`).getAttribute("title"), null);
      await page.selectOption("#variant", "standard");
      // In the game, the bot's badge says the same.
      await hard.click();
      await page.click("#start");
      await page.waitForURL(/#\/game\//);
      const badge = page.locator(".strip .badge", { hasText: "rating" });
      await badge.waitFor();
      assert.equal((await badge.textContent())?.trim(), `rating ${rating}`, "the bot's name says its level: the badge only its rating");
      assert.match((await badge.getAttribute("title")) ?? "", /^ladder rating \(Elo scale, easy = 0\)/);
      await shot(page, "45-bot-badge-rating");
    }
    await ctx.close();
  }
});
