// What people trying the site met, each checked in the browser: a
// stranger's link to someone else's game (the spectator's view, never a
// player's controls), the same game in two tabs (the tab another took over
// is locked until "Play here"), going Back to the queue with a game in
// progress (a way back to it, not a raw error), the end of a game in
// words, and whose Banqi captures are whose. Screenshots go to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { clickSquare, destinations, plyEach, startBot, waitTurn } from "./play";

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

async function plies(page: Page): Promise<number> {
  return Number(await page.locator(".board-box").getAttribute("data-ply-count"));
}

/** rpc calls the API as the page's signed-in player, as the client does (Connect, JSON). */
async function rpc(page: Page, method: string, body: object): Promise<any> {
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}").token as string);
  const r = await fetch(`${server.url}/tabuleiro.match.v1.MatchService/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const j = await r.json();
  if (!r.ok) throw new Error(`${method}: ${JSON.stringify(j)}`);
  return j;
}

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
  await shot(page, "tryout3-signed-out-link");
  await signIn(page, "Stranger", false);
  await page.waitForURL(new RegExp(`#/watch/${matchId}$`));
  await page.waitForSelector(".board-box svg");
  await page.waitForSelector(".game-info :text('spectating')");
  assert.equal(await page.locator("#resign, #offer-draw, #wall-mode").count(), 0, "no player's controls");
  assert.equal(await page.locator(".board-box").getAttribute("data-acting"), "no");
  assert.equal(await page.locator(".board-box circle.dest").count(), 0, "no destinations to play");
  assert.equal(await page.locator(".conn-banner.failed").count(), 0, "no error banner");
  assert.match((await page.locator("#status-line").textContent()) ?? "", /Seated to move/);
  await shot(page, "tryout3-stranger-link");
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
  await shot(older, "tryout3-older-tab-locked");
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
  await shot(a.page, "tryout3-queue-busy");
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
  await shot(b.page, "tryout3-result-words");
  await a.ctx.close();
  await b.ctx.close();
});

test("Banqi: the captured pieces say whose captures they are, for the player and for a spectator", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Catcher");
  const matchId = await startBot(page, "Banqi", { seat: "First" });
  // Played through the API, as the page would: a capture when there is one, else a reveal.
  let captured = 0;
  for (let i = 0; i < 400 && !captured; i++) {
    const m = (await rpc(page, "GetMatch", { matchId })).match;
    if (m.status === "MATCH_STATUS_FINISHED") break;
    captured = m.view?.banqi?.captured?.length ?? 0;
    if (captured || m.view.toMove !== m.yourSeat) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    const n = (m.view.plyCount ?? 0) + 1;
    const legal = (await rpc(page, "ListLegalPlies", { matchId, expectedPlyNumber: n })).plies ?? [];
    const ply = legal.find((p: any) => p.kind === "PLY_KIND_CAPTURE") ?? legal.find((p: any) => p.kind === "PLY_KIND_REVEAL") ?? legal[0];
    await rpc(page, "SubmitPly", { matchId, plyNumber: n, notation: ply.notation }).catch(() => {});
  }
  assert.ok(captured > 0, "a piece was captured");
  await page.waitForSelector(".strip .captured");
  const bot = (await page.locator(".top-strip .pname").textContent())!;
  for (const strip of await page.locator(".strip:has(.captured)").all()) {
    const mine = (await strip.getAttribute("class"))!.includes("bottom-strip");
    assert.equal(await strip.locator(".captured-caption").textContent(), mine ? "Captured by you" : `Captured by ${bot}`);
  }
  await shot(page, "tryout3-banqi-captured-player");
  const watcher = await newPlayer(browser, server.url);
  await signIn(watcher.page, "Onlooker");
  await watcher.page.goto(`${server.url}/#/watch/${matchId}`);
  await watcher.page.waitForSelector(".strip .captured");
  for (const strip of await watcher.page.locator(".strip:has(.captured)").all()) {
    const colour = (await strip.locator(".seat-colour").textContent())!;
    assert.match(colour, /^(Red|Black)$/);
    assert.equal(await strip.locator(".captured-caption").textContent(), `Captured by ${colour}`);
  }
  await shot(watcher.page, "tryout3-banqi-captured-spectator");
  if ((await page.locator("#resign").count()) > 0) {
    await page.click("#resign");
    await page.click("#resign-confirm");
  }
  await watcher.ctx.close();
  await ctx.close();
});
