// Watching games in the browser: a link to someone else's game opens it as
// a spectator (never a player's controls), also for a signed-out visitor
// who signs in on the way; the Watch page asks a signed-out visitor for a
// name; one's own game found in the Watch list leads back to the seat; a
// spectator's board takes no keyboard focus; a private game opened by
// someone not in it says it may be private. (Spectators invited to a
// private game are in rooms.test.ts.) Screenshots go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { clickSquare, playOne, plyEach, startBot, startLocal, waitTurn } from "./play";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";

serveAndLaunch();

test("a link to someone else's game opens it as a spectator: no resign, no moves, no player's controls", async () => {
  const player = await newPlayer(browser, server.url);
  await signIn(player.page, "Seated");
  const matchId = await startBot(player.page, "Quoridor", { seat: "White (first)" });
  await waitTurn(player.page);
  const { ctx, page } = await newPlayer(browser, server.url);
  // Signed out, the link's page says it leads to a game; signing in goes on to it.
  await page.goto(`${server.url}/#/game/${matchId}`);
  await page.waitForSelector("#watch-title");
  assert.equal(await page.locator("form.signin button[type=submit]").textContent(), "Watch the game");
  await shot(page, "spectators-signed-out-link");
  await signIn(page, "Stranger", false);
  await page.waitForURL(new RegExp(`#/watch/${matchId}$`));
  await page.waitForSelector(".board-box svg");
  await page.waitForSelector(".game-info :text('spectating')");
  assert.equal(await page.locator("#resign, #offer-draw, #wall-mode").count(), 0, "no player's controls");
  assert.equal(await page.locator(".board-box").getAttribute("data-acting"), "no");
  assert.equal(await page.locator(".board-box circle.dest").count(), 0, "no destinations to play");
  assert.equal(await page.locator(".conn-banner.failed").count(), 0, "no error banner");
  assert.match((await page.locator("#status-line").textContent()) ?? "", /Seated to move/);
  await shot(page, "spectators-stranger-link");
  // The page's Back button does not bring the player's view back.
  await page.goBack();
  await page.waitForSelector("#start");
  // A ply each first: a resignation before that aborts the game (no loser).
  await plyEach([player.page]);
  await player.page.click("#resign");
  await player.page.click("#resign-confirm");
  await player.page.waitForSelector("#result-title:has-text('You lost')");
  assert.equal(await player.page.locator("#result-line").textContent(), "You resigned.");
  await player.ctx.close();
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
  await shot(page, "spectators-watch-signed-out");
  await page.fill("#name", "Looker On");
  await page.click("form.signin button[type=submit]");
  await page.waitForSelector("#live-list");
  assert.match(page.url(), /#\/watch$/);
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
  await shot(page, "spectators-watch-list-own-game");
  // Opened as a spectator anyway (a link kept from before): the seat is
  // one's own, away from the board, with the way back.
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForSelector(".board-box svg");
  await page.waitForSelector(".bottom-strip .away.mine, .top-strip .away.mine", { timeout: 60_000 });
  assert.equal(await page.locator(".strip .away:not(.mine)").count(), 0, "no seat says disconnected");
  assert.match((await page.locator(".strip .away.mine").textContent()) ?? "", /^away from the board/);
  assert.equal(await page.locator(".strip:has(.away.mine) .you").count(), 1, "the seat is marked as one's own");
  assert.match((await page.locator("#status-line").textContent()) ?? "", /This is your game/);
  await shot(page, "spectators-watch-own-game");
  await page.click("#take-seat");
  await page.waitForURL(new RegExp(`#/game/${matchId}$`));
  const info = await waitTurn(page);
  assert.ok(info.acting && !info.finished, "back in the seat, to move");
  await page.waitForFunction(() => !document.querySelector(".strip .away"));
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("a spectator's board is not a keyboard stop: no focus, no focus ring, even after a click", async () => {
  const player = await newPlayer(browser, server.url);
  await signIn(player.page, "Shown");
  await player.page.click(`label.game-card[data-game="Quoridor"]`);
  await player.page.click(`label.chip:has-text("Bot")`);
  await player.page.click(`label.chip[data-level="Easy"]`);
  await player.page.click("label.chip:has-text('White (first)')");
  await player.page.click("#start");
  await player.page.waitForURL(/#\/game\//);
  const matchId = player.page.url().split("/").pop()!;
  await waitTurn(player.page);
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Onlooker");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForSelector(".board-box svg");
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  const board = page.locator(".board-box");
  assert.equal(await board.getAttribute("tabindex"), null, "the spectator's board is no keyboard stop");
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("board-box") ?? false), false, "the board did not take the focus");
  await board.click();
  await page.keyboard.press("ArrowUp");
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("board-box") ?? false), false, "a click does not focus it");
  assert.equal(await page.locator(".board-box .kbd-cursor").count(), 0, "no keyboard cursor for a spectator");
  assert.equal(await board.evaluate((el) => getComputedStyle(el).outlineStyle), "none", "no focus ring");
  // The player's ply arrives: still no ring.
  await player.page.waitForSelector(".board-box circle.dest");
  await clickSquare(player.page, Game.QUORIDOR, "e2", false);
  await page.waitForFunction(() => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) >= 1);
  assert.equal(await board.evaluate((el) => getComputedStyle(el).outlineStyle), "none", "no focus ring after a ply");
  await shot(page, "spectators-watch-no-ring");
  await player.page.click("#resign");
  await player.page.click("#resign-confirm");
  await player.ctx.close();
  await ctx.close();
});

test("a private game opened by someone who is not in it says it does not exist or is private", async () => {
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Private Pair");
  const matchId = await startLocal(host.page, "Quoridor");
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Nosy");
  await page.goto(`${server.url}/#/game/${matchId}`);
  await page.waitForSelector(".conn-banner.failed");
  const text = (await page.locator(".conn-banner").textContent()) ?? "";
  assert.match(text, /private/, `the banner says the game may be private: ${JSON.stringify(text)}`);
  await shot(page, "spectators-private-game");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForFunction(() => /private/.test(document.querySelector(".conn-banner.failed")?.textContent ?? ""));
  await ctx.close();
  await host.page.click("#resign");
  await host.page.click("#resign-confirm");
  await host.ctx.close();
});
