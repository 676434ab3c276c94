// The lobby and the way back to one's game, in the browser: a name the
// lobby refuses is explained under the sign-in's field before any request;
// bot levels show their ladder rating (picker and badge); the lobby's games
// in progress follow a game started and ended in another tab; Back to the
// queue with a game in progress offers the way back to it (and the result
// says why the game ended, in words); the same game in two tabs locks the
// tab taken over until "Play here". Screenshots go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boxOf, clickSquare, destinations, plyEach, startBot, waitTurn } from "./play";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";

serveAndLaunch();

async function plies(page: Page): Promise<number> {
  return Number(await page.locator(".board-box").getAttribute("data-ply-count"));
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
  await shot(page, "lobby-name-refused");
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
    await shot(page, phone ? "lobby-level-ratings-phone" : "lobby-level-ratings");
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
      await shot(page, "lobby-bot-badge-rating");
    }
    await ctx.close();
  }
});

test("the lobby's games in progress follow a game started and ended in another tab, without a reload", async () => {
  const { ctx, page: lobby } = await newPlayer(browser, server.url);
  await signIn(lobby, "Tabs");
  const list = ".panel:has(> h2:has-text('Your games in progress'))";
  await lobby.waitForSelector(`${list}:has-text('None')`);
  const game = await ctx.newPage();
  await game.goto(server.url);
  await game.waitForSelector("#start");
  const matchId = await startBot(game, "Quoridor", { seat: "White (first)" });
  await waitTurn(game);
  // Back to the lobby's tab: the new game is listed.
  await lobby.bringToFront();
  await lobby.waitForSelector(`${list} .summary[data-match="${matchId}"]`, { timeout: 60_000 });
  await game.bringToFront();
  await game.click("#resign");
  await game.click("#resign-confirm");
  await game.waitForSelector(".result-card");
  await lobby.bringToFront();
  await lobby.waitForSelector(`${list} .summary[data-match="${matchId}"]`, { state: "detached", timeout: 60_000 });
  await lobby.waitForSelector(`${list}:has-text('None')`);
  await shot(lobby, "lobby-list-current");
  await ctx.close();
});

test("Back to the queue with a game in progress: the player is told so and offered the way back to it", async () => {
  const a = await newPlayer(browser, server.url);
  const b = await newPlayer(browser, server.url);
  await signIn(a.page, "Queue One");
  await signIn(b.page, "Queue Two");
  for (const p of [a.page, b.page]) {
    await p.click(`label.game-card[data-game="Quoridor"]`);
    await p.click(`label.chip:has-text("Quick pairing")`);
    await p.click("label.chip:has-text('5+3')");
    await p.click("#start");
  }
  await a.page.waitForURL(/#\/game\//, { timeout: 60_000 });
  await b.page.waitForURL(/#\/game\//, { timeout: 60_000 });
  const matchId = a.page.url().split("/").pop()!;
  await a.page.waitForSelector(".board-box svg");
  // Back, to the queue: pairing again is refused, in words, with the game to go back to.
  await a.page.goBack();
  await a.page.waitForURL(/#\/queue/);
  const link = a.page.locator("#busy-game");
  await link.waitFor();
  assert.equal(await link.getAttribute("href"), `#/game/${matchId}`);
  const text = (await a.page.locator(".queue").textContent()) ?? "";
  assert.match(text, /You already have a game in progress/);
  assert.doesNotMatch(text, /already in match|finish or resign it first/, "no raw server message");
  await shot(a.page, "lobby-queue-busy");
  // And from the lobby's button.
  await a.page.goto(`${server.url}/#/play`);
  await a.page.click(`label.chip:has-text("Quick pairing")`);
  await a.page.click("#start");
  await a.page.locator("#busy-game").waitFor();
  await a.page.click("#busy-game");
  await a.page.waitForURL(new RegExp(`#/game/${matchId}$`));
  await a.page.waitForSelector("#resign");
  // A ply each first: a resignation before that aborts the game (no winner).
  await plyEach([a.page, b.page]);
  await a.page.click("#resign");
  await a.page.click("#resign-confirm");
  await a.page.waitForSelector("#result-title:has-text('You lost')");
  assert.equal(await a.page.locator("#result-line").textContent(), "You resigned.");
  await b.page.waitForSelector("#result-title:has-text('You won')");
  assert.equal(await b.page.locator("#result-line").textContent(), "Your opponent resigned.");
  assert.equal(await b.page.locator("#status-line").textContent(), "You won. Your opponent resigned.");
  await shot(b.page, "lobby-result-words");
  await a.ctx.close();
  await b.ctx.close();
});

test("the same game in two tabs: the tab taken over is locked until 'Play here', and no raw refusal shows", async () => {
  const { ctx, page: older } = await newPlayer(browser, server.url);
  await signIn(older, "Two Tabs");
  const matchId = await startBot(older, "Quoridor", { seat: "White (first)" });
  const info = await waitTurn(older);
  await older.waitForSelector(".board-box circle.dest");
  const ds = await destinations(older);
  const newer = await ctx.newPage();
  newer.on("pageerror", (e) => console.error("page error:", e.message));
  await newer.goto(`${server.url}/#/game/${matchId}`);
  await waitTurn(newer);
  // The older tab is told, and takes no ply.
  await older.waitForSelector(".conn-banner button:has-text('Play here')");
  await older.waitForFunction(() => document.querySelector<HTMLElement>(".board-box")?.dataset.acting === "no");
  assert.equal(await older.locator(".board-box circle.dest").count(), 0, "no destinations in the tab taken over");
  assert.equal(await older.locator("#resign, #offer-draw").count(), 0, "no resign or draw in the tab taken over");
  assert.ok(await older.locator("#wall-mode").isDisabled(), "the wall button is off");
  assert.match((await older.locator("#status-line").textContent()) ?? "", /another tab/);
  await shot(older, "lobby-older-tab-locked");
  // The newer tab plays; the older one is clicked where its dot was: nothing is sent, nothing raw is said.
  await newer.waitForSelector(".board-box circle.dest");
  await clickSquare(newer, Game.QUORIDOR, ds[0], info.flipped);
  await newer.waitForFunction(() => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) >= 2);
  await clickSquare(older, Game.QUORIDOR, ds[0], info.flipped);
  await older.keyboard.press("w");
  await older.evaluate(() => new Promise((r) => setTimeout(r, 1000)));
  assert.equal(await plies(older), 0, "the older tab did not move (its position is the old one)");
  const said = (await older.locator("body").textContent()) ?? "";
  assert.doesNotMatch(said, /refused|ply \d|next ply is number/, "no raw server message");
  // "Play here" takes the game back to this tab, at the current position; the other is locked now.
  await older.click(".conn-banner button:has-text('Play here')");
  await older.waitForFunction(() => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) >= 2);
  const back = await waitTurn(older);
  assert.ok(back.acting, "the tab taken back plays");
  await newer.waitForSelector(".conn-banner button:has-text('Play here')");
  await newer.waitForFunction(() => document.querySelector<HTMLElement>(".board-box")?.dataset.acting === "no");
  await older.click("#resign");
  await older.click("#resign-confirm");
  await older.waitForSelector("#result-title:has-text('You lost')");
  await ctx.close();
});
