// Rough edges that outsiders met in the web client, each checked in the
// browser: a Quoridor pawn clicked twice, a Corners or Banqi square the
// selected piece cannot reach, refusals in the error style where the hint is (never
// over the board or its controls) with their rule numbers linked to the
// rules, the replay laid out as the live game, and the lobby's games in
// progress kept current. Screenshots go to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { boardBox, boardInfo, boxOf, clickSquare, destinations, pawns, startBot, waitTurn, wallCursorTo } from "./play";

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
  await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) > n, after);
}

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test("Quoridor: a click on one's own selected pawn keeps it selected, and a dot then moves it", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Twice");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  const info = await waitTurn(page);
  await page.waitForSelector(".board-box circle.dest");
  const before = await destinations(page);
  const { white } = await pawns(page);
  // The click is answered at once, in the page: no wait for a redrawing.
  await clickSquare(page, Game.QUORIDOR, white, info.flipped);
  assert.deepEqual((await destinations(page)).sort(), before.sort(), "the pawn is still selected: its dots are there");
  assert.equal(await page.locator(".board-box rect.selected").count(), 1, "the pawn's square is still marked");
  await shot(page, "50-quoridor-pawn-clicked-twice");
  await clickSquare(page, Game.QUORIDOR, before[0], info.flipped);
  await waitPly(page, info.plyCount);
  assert.equal((await pawns(page)).white, before[0], "the dot clicked after the pawn moved it");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("Corners: a square the selected piece cannot reach is refused with its reason, in the error style, and the piece stays selected", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Reach");
  await startBot(page, "Corners", { seat: "White (first)" });
  const info = await waitTurn(page);
  const mine = await page.locator(".board-box g.piece.white").evaluateAll((els) => els.map((e) => e.getAttribute("data-piece")!));
  const theirs = await page.locator(".board-box g.piece.black").evaluateAll((els) => els.map((e) => e.getAttribute("data-piece")!));
  // a1 is walled in by its own side at the start: it cannot move, and says so as a refusal.
  assert.ok(mine.includes("a1"));
  await clickSquare(page, Game.CORNERS, "a1", info.flipped);
  const refused = page.locator("#toast.show:has-text('cannot move')");
  await refused.waitFor();
  assert.match((await refused.getAttribute("class")) ?? "", /\berror\b/, "a piece that cannot move is a refusal");
  // c3 can move; e5 is no square of it.
  await clickSquare(page, Game.CORNERS, "c3", info.flipped);
  await page.waitForSelector(".board-box circle.dest");
  const ds = await destinations(page);
  const far = ["e5", "f6", "d5"].find((q) => !ds.includes(q) && !mine.includes(q) && !theirs.includes(q))!;
  await clickSquare(page, Game.CORNERS, far, info.flipped);
  const why = page.locator(`#toast.show.error:has-text("c3 to ${far}")`);
  await why.waitFor();
  const text = (await why.textContent()) ?? "";
  assert.match(text, new RegExp(`^c3 to ${far}: .+ \\(C\\d+(\\.\\d+)*\\)\\. Pick one of the dots\\.$`), text);
  assert.deepEqual((await destinations(page)).sort(), ds.sort(), "c3 is still selected, its dots shown");
  await shot(page, "51-corners-square-refused");
  await clickSquare(page, Game.CORNERS, ds[0], info.flipped);
  await waitPly(page, info.plyCount);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("Banqi: a square the selected piece cannot reach is refused with its reason, in the error style, and the piece stays selected", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Reveal");
  await page.click(`label.game-card[data-game="Banqi"]`);
  await page.click(`label.chip:has-text("Two players, one device")`);
  await page.click("#start");
  await page.waitForURL(/#\/local\//);
  const squares = Array.from({ length: 32 }, (_, i) => String.fromCharCode(97 + (i % 8)) + (Math.floor(i / 8) + 1));
  const discs = (sel: string) => page.locator(`.board-box g.disc${sel}`).evaluateAll((els) => els.map((e) => e.getAttribute("data-sq-piece")!));
  // Both seats are played here. The side to move reveals the next face-down
  // square (a1, b1, …) until one of its face-up pieces can move and has a
  // square it cannot reach that is neither face down (a click there reveals)
  // nor its own (a click there picks that piece): an empty square or an enemy
  // piece it may not capture. When nothing is face down, a dot is played.
  let firstRed: boolean | undefined;
  let found: { from: string; to: string; ds: string[]; flipped: boolean; plyCount: number } | undefined;
  for (let i = 0; i < 60 && !found; i++) {
    const info = await waitTurn(page);
    assert.ok(!info.finished, "the game goes on");
    const [red, black, down] = [await discs(".revealed.red"), await discs(".revealed.black"), await discs(".face-down")];
    if (firstRed === undefined && info.plyCount === 1) firstRed = red.length === 1;
    const moverRed = firstRed === undefined ? undefined : firstRed === (info.plyCount % 2 === 0);
    const [mine, theirs] = moverRed === undefined ? [[], []] : moverRed ? [red, black] : [black, red];
    const empty = squares.filter((q) => !red.includes(q) && !black.includes(q) && !down.includes(q));
    let dot: string | undefined;
    for (const p of mine) {
      await page.evaluate(() => { const t = document.getElementById("toast"); if (t) t.textContent = ""; });
      await clickSquare(page, Game.BANQI, p, info.flipped);
      await page.waitForSelector(`.board-box circle.dest, #toast:has-text("cannot move")`);
      if (!(await page.locator(".board-box circle.dest").count())) continue;
      const ds = await destinations(page);
      const to = [...empty, ...theirs].find((q) => !ds.includes(q));
      if (to) {
        found = { from: p, to, ds, flipped: info.flipped, plyCount: info.plyCount };
        break;
      }
      dot ??= `${p} ${ds[0]}`;
      // A second click puts it down: the next piece's dots are its own.
      await clickSquare(page, Game.BANQI, p, info.flipped);
      await page.waitForFunction(() => !document.querySelector(".board-box circle.dest"));
    }
    if (found) break;
    const next = squares.find((q) => down.includes(q));
    if (next) await clickSquare(page, Game.BANQI, next, info.flipped);
    else {
      assert.ok(dot, "nothing face down, so some piece can move");
      const [p, d] = dot.split(" ");
      await clickSquare(page, Game.BANQI, p, info.flipped);
      await page.waitForSelector(".board-box circle.dest");
      await clickSquare(page, Game.BANQI, d, info.flipped);
    }
    await waitPly(page, info.plyCount);
  }
  assert.ok(found, "a piece that can move and a square it cannot reach came up");
  const { from, to, ds, flipped, plyCount } = found;
  await clickSquare(page, Game.BANQI, to, flipped);
  const why = page.locator(`#toast.show.error:has-text("${from} to ${to}")`);
  await why.waitFor();
  const text = (await why.textContent()) ?? "";
  assert.match(text, new RegExp(`^${from} to ${to}: .+ \\(B\\d+(\\.\\d+)*\\)\\. Pick one of the dots\\.$`), text);
  assert.deepEqual((await destinations(page)).sort(), [...ds].sort(), `${from} is still selected, its dots shown`);
  assert.equal(await page.locator(".board-box rect.selected").count(), 1, `${from}'s square is still marked`);
  await shot(page, "52-banqi-square-refused");
  await clickSquare(page, Game.BANQI, ds[0], flipped);
  await waitPly(page, plyCount);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("at 1280x800 the hint stays on the screen, a refusal shows where the hint was (not over the board or its buttons), and its rule number opens that rule", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "Fold");
  // A clock: before the first ply the hint also says the game is called off in time.
  await startBot(page, "Quoridor", { seat: "White (first)", clock: "3+2" });
  let info = await waitTurn(page);
  await page.waitForSelector(".bottom-strip .first-ply");
  const hint = await boxOf(page.locator(".board-tools .hint"), "the hint");
  assert.ok(hint.y + hint.height <= 800, `the hint ends at ${hint.y + hint.height}, within 800`);
  await shot(page, "52-hint-above-the-fold");
  // A wall by the keyboard, then the same wall again: refused, with its rule.
  await page.keyboard.press("w");
  await page.keyboard.press("ArrowUp");
  const placed = (await page.locator(".board-box rect.kbd-cursor").getAttribute("data-wall"))!;
  await page.keyboard.press("Enter");
  await waitPly(page, info.plyCount);
  info = await waitTurn(page);
  await page.focus(".board-box");
  await page.keyboard.press("w");
  await page.waitForSelector("#wall-mode.on");
  // Wall mode starts on the nearest placeable wall: back onto the one just placed.
  await page.waitForSelector(".board-box rect.kbd-cursor.valid");
  await wallCursorTo(page, placed, info.flipped);
  await page.keyboard.press("Enter");
  const toast = page.locator("#toast.show.error");
  await toast.waitFor();
  const box = await boxOf(toast, "the refusal");
  assert.ok(box.y + box.height <= 800, `the refusal ends at ${box.y + box.height}, within 800`);
  assert.ok(!overlap(box, await boardBox(page)), "the refusal is not over the board");
  for (const sel of ["#wall-mode", "#rotate", ".bottom-strip"]) {
    assert.ok(!overlap(box, await boxOf(page.locator(sel), sel)), `the refusal is not over ${sel}`);
  }
  assert.equal(await page.locator(".board-tools .hint").isVisible(), false, "the refusal stands where the hint was");
  const link = toast.locator("a.rule-ref");
  const rule = (await link.textContent()) ?? "";
  assert.match(rule, /^Q\d+(\.\d+)*$/, `the rule number is a link: ${JSON.stringify(await toast.textContent())}`);
  assert.equal(await link.getAttribute("href"), `#/rules/quoridor/${rule}`);
  assert.equal(await link.getAttribute("target"), "_blank", "the rule opens beside the game, which stays");
  await shot(page, "53-refusal-where-the-hint-was");
  const [rules] = await Promise.all([ctx.waitForEvent("page"), link.click()]);
  const section = rules.locator(`.rules-doc [data-rule="${rule}"].target`);
  await section.waitFor();
  assert.ok(await section.isVisible(), "the rule's section is marked and in view");
  const header = await boxOf(rules.locator("header.top"), "the header");
  const heading = await boxOf(section, "the rule's heading");
  assert.ok(heading.y >= header.y + header.height, `the rule's heading (at ${heading.y}) is below the header (ends at ${header.y + header.height}), not under it`);
  await shot(rules, "54-rules-section");
  await rules.close();
  assert.equal((await boardInfo(page)).plyCount, info.plyCount, "nothing was played");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("the replay is laid out as the live game: the same board size, and both strips with Quoridor's walls left at each ply", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "Again");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  let info = await waitTurn(page);
  const live = await boardBox(page);
  await page.keyboard.press("w");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await waitPly(page, info.plyCount);
  info = await waitTurn(page);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  const left = async () => [await page.locator(".bottom-strip .walls-left").getAttribute("data-walls"), await page.locator(".top-strip .walls-left").getAttribute("data-walls")];
  const liveLeft = await left();
  assert.equal(liveLeft[0], "9", "white placed one wall");
  await page.click(".result-card a:has-text('Replay')");
  await page.waitForSelector(".replay-nav");
  // It opens at the start; End jumps to the last ply.
  await page.waitForSelector(".counter:has-text('Ply 0 of')");
  await page.keyboard.press("End");
  await page.waitForSelector(".counter:not(:has-text('Ply 0 of'))");
  const replay = await boardBox(page);
  assert.ok(Math.abs(replay.width - live.width) < 2, `the replay's board is as wide as the live one (${replay.width} vs ${live.width})`);
  assert.match((await page.locator(".bottom-strip .pname").textContent()) ?? "", /Again/);
  assert.equal(await page.locator(".bottom-strip .you").count(), 1);
  assert.match((await page.locator(".top-strip .pname").textContent()) ?? "", /Bot/);
  assert.deepEqual(await left(), liveLeft, "the last ply's walls left, as the live game showed them");
  await shot(page, "55-replay-like-live");
  await page.keyboard.press("Home");
  await page.waitForSelector(".counter:has-text('Ply 0 of')");
  assert.deepEqual(await left(), ["10", "10"], "before any wall, ten each");
  // ?ply=N opens the replay at ply N.
  await page.goto(`${page.url().split("?")[0]}?ply=1`);
  await page.waitForSelector(".counter:has-text('Ply 1 of')");
  const nav = await boxOf(page.locator(".replay-nav"), "the ply controls");
  assert.ok(nav.y + nav.height <= 800, `the ply controls end at ${nav.y + nav.height}, within 800`);
  await ctx.close();
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
  await shot(lobby, "56-lobby-list-current");
  await ctx.close();
});
