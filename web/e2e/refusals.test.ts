// Clicks on the board that make no ply, and what the page says: one's own
// selected pawn clicked again stays selected; a Corners or Banqi square the
// selected piece cannot reach is refused with its reason and rule, in the
// error style, the piece still selected; a refusal stands where the hint
// was (never over the board or its controls, on screen at 1280x800) and its
// rule number opens that rule; the rules page it opens reads as a column,
// without developer text; and a Corners ply back home after the deadline
// (C5.2), which would lose, is marked and asked about before it is played.
// (A refused wall by keyboard is in web.test.ts and walls.test.ts.)
// Screenshots go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boardBox, boardInfo, boxOf, clickSquare, destinations, matchRpc, pawns, startBot, startLocal, tokens, waitPly, waitTurn, wallCursorTo } from "./play";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";

serveAndLaunch();

/** rpc calls the match API as a page's signed-in player or with a token. */
const rpc = (who: Page | string, method: string, body: object): Promise<any> => matchRpc(server.url, who, method, body);

async function plyCount(page: Page, n: number): Promise<void> {
  await page.waitForFunction((k) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) === k, n);
}

// 40 moves of classic-3x3 in which every piece leaves home in time and
// nobody wins or repeats; at move 41 white's d2 may step back home to c2.
const FORTY_MOVES = "b3-b4 f8-e8 c3-c4 h8-f8-d8 a2-a4 g6-g5 c1-d1 h7-h5 a1-c1-e1 f6-f5 a3-a5 g8-g6-g4 b1-b3-b5 g7-e7 b2-d2 f7-d7 c2-e2 h6-h4-f4 b4-b6 g4-h4 a4-a6-c6 d8-d6 a5-a6 h5-h3 e1-e3 e8-d8 b6-b7 f4-f3 b7-a7 d8-c8 e2-f2 d6-d8-b8 b5-b4 h4-h5 e3-e4 c8-c7 f2-g2 b8-b7 a7-a8 c7-c8 d1-d3 g5-e5-e3-c3-c5-c7-a7-a5 c6-c7 a5-b5 b4-d4 f5-g5 g2-g1 c8-b8 a6-a5 h3-g3 a8-c8 b8-d8-d6 d4-b4-b6 d6-e6 d2-d4-f4 d7-d6 b6-b4-d4-d2 g3-g2 d3-d4 b5-b4 g1-g3 b7-b6 c4-c5 g5-g4 e4-c4 g2-h2 c8-c6-a6-a4 b4-b5 c4-c6-a6 e7-e5 a6-a7 g4-e4-c4-c6-c8 c7-d7 h5-g5 d7-d5 h2-h3 d4-e4 e6-e7 a4-a6-c6-e6 c8-b8".split(" ");

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
  await shot(page, "refusals-quoridor-pawn-clicked-twice");
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
  await shot(page, "refusals-corners-square-refused");
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
  await shot(page, "refusals-banqi-square-refused");
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
  // Measured once connected: "Connecting…" stands above the board while
  // the stream opens (on a loaded machine, after the turn is known).
  await page.waitForSelector(".conn-banner:empty", { state: "attached" });
  const hint = await boxOf(page.locator(".board-tools .hint"), "the hint");
  assert.ok(hint.y + hint.height <= 800, `the hint ends at ${hint.y + hint.height}, within 800`);
  await shot(page, "refusals-hint-above-the-fold");
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
  await shot(page, "refusals-refusal-where-the-hint-was");
  const [rules] = await Promise.all([ctx.waitForEvent("page"), link.click()]);
  const section = rules.locator(`.rules-doc [data-rule="${rule}"].target`);
  await section.waitFor();
  assert.ok(await section.isVisible(), "the rule's section is marked and in view");
  const header = await boxOf(rules.locator("header.top"), "the header");
  const heading = await boxOf(section, "the rule's heading");
  assert.ok(heading.y >= header.y + header.height, `the rule's heading (at ${heading.y}) is below the header (ends at ${header.y + header.height}), not under it`);
  await shot(rules, "refusals-rules-section");
  await rules.close();
  assert.equal((await boardInfo(page)).plyCount, info.plyCount, "nothing was played");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("the rules page: a readable column with no empty half page beside it, and no developer text", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${server.url}/#/rules/quoridor/Q3.2`);
  await page.waitForSelector(".rules-doc h4.target");
  await shot(page, "refusals-rules-desk");
  const doc = await boxOf(page.locator(".rules-doc"), "the rules text");
  const panel = await boxOf(page.locator(".panel.rules"), "the rules panel");
  const ch = await page.evaluate(() => {
    const s = document.createElement("span");
    s.style.cssText = "position:absolute;visibility:hidden;width:1ch";
    document.querySelector(".rules-doc")!.append(s);
    const w = s.getBoundingClientRect().width;
    s.remove();
    return w;
  });
  assert.ok(doc.width >= 60 * ch && doc.width <= 80 * ch, `the text is 60-80 characters wide (${(doc.width / ch).toFixed(1)} ch)`);
  const empty = panel.x + panel.width - (doc.x + doc.width);
  assert.ok(empty <= 40, `no empty area beside the text in its panel (${empty} px)`);
  const text = (await page.locator("main").textContent()) ?? "";
  assert.doesNotMatch(text, /pkg\/engine|tabuleiro rules show/, "no developer text");
  for (const game of ["corners", "banqi"]) {
    await page.goto(`${server.url}/#/rules/${game}`);
    await page.waitForSelector(`.rules-games a.on[href="#/rules/${game}"]`);
    assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /pkg\/engine|tabuleiro rules show/, `${game}: no developer text`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
  assert.ok(widths.doc <= widths.view, `on a phone the page is no wider than the screen (${widths.doc} > ${widths.view})`);
  await shot(page, "refusals-rules-phone");
  await ctx.close();
});

test("Corners after the deadline: a ply back home is an orange dot and asks before it loses the game; the move and its limits are in view", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Homebody");
  const matchId = await startLocal(page, "Corners", "classic-3x3");
  assert.equal(await page.locator("#move-line").textContent(), "Move 1 of 80 · leave home by move 40");
  const t = await tokens(page);
  for (let i = 0; i < FORTY_MOVES.length; i++) {
    await rpc(i % 2 === 0 ? t.me : t.partner, "SubmitPly", { matchId, plyNumber: i + 1, notation: FORTY_MOVES[i] });
  }
  await plyCount(page, 80);
  const info = await waitTurn(page);
  assert.equal(info.flipped, false);
  assert.equal(await page.locator("#move-line").textContent(), "Move 41 of 80 · leave home by move 40");
  await clickSquare(page, Game.CORNERS, "d2", false);
  await page.waitForSelector(".board-box circle.dest");
  assert.ok((await destinations(page)).includes("c2"));
  assert.deepEqual(await page.locator(".board-box circle.dest.lose").evaluateAll((els) => els.map((e) => e.getAttribute("data-dest"))), ["c2"],
    "only the square back home is marked as losing");
  await shot(page, "refusals-corners-losing-dot");
  // The ply back home is asked about, not played; Cancel keeps the game going.
  await clickSquare(page, Game.CORNERS, "c2", false);
  await page.waitForSelector("#return-confirm");
  assert.match((await page.locator("[aria-label='Confirm a losing move']").textContent()) ?? "", /c2 is in Homebody.s own home.*loses the game/);
  await shot(page, "refusals-corners-confirm");
  assert.equal(Number(await page.locator(".board-box").getAttribute("data-ply-count")), 80, "not played before it is confirmed");
  await page.click("#return-cancel");
  assert.equal(await page.locator("#return-confirm").count(), 0);
  assert.equal(Number(await page.locator(".board-box").getAttribute("data-ply-count")), 80);
  const m = (await rpc(t.me, "GetMatch", { matchId })).match;
  assert.equal(m.plies.length, 80, "the server has no 81st ply");
  // The piece stays picked up with its dots; confirmed, the ply is played and loses (C5.2).
  await page.waitForSelector(".board-box circle.dest.lose");
  await clickSquare(page, Game.CORNERS, "c2", false);
  await page.click("#return-confirm");
  await page.waitForSelector("#result-title");
  assert.match((await page.locator("#result-line").textContent()) ?? "", /home/i);
  await shot(page, "refusals-corners-lost");
  await ctx.close();
});
