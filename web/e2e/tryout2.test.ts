// What a new player met in a second tryout, each checked in the browser:
// a game called off while its player was away shows the normal name bar
// (no countdown to return to a finished game), Black's Quoridor walls
// stand out from the board, a wall that cannot go where the keyboard
// cursor is shows red with the reason, a spectator's board takes no
// keyboard focus, the rules page hides developer lines. Screenshots go
// to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { boxOf, clickSquare, layout, plyEach, toPage, waitTurn, wallCursorTo } from "./play";
import { parseSquare, parseWall, squareCenter, wallCenter, wallRect } from "../src/geometry";

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

test("a game called off while its player was away: the name bar as usual, no countdown to return", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Wanderer");
  await page.click(`label.game-card[data-game="Quoridor"]`);
  await page.click(`label.chip:has-text("Bot")`);
  await page.click(`label.chip[data-level="Hard"]`);
  await page.click("label.chip:has-text('1+1')");
  await page.click("label.chip:has-text('White (first)')");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  const matchId = page.url().split("/").pop()!;
  await page.waitForSelector(".bottom-strip .first-ply");
  // The tab is closed without a ply: the seat is away, and the first ply
  // never comes (30 s), so the game is called off.
  await page.close();
  const again = await ctx.newPage();
  await again.goto(`${server.url}/#/history`);
  const deadline = Date.now() + 150_000;
  for (;;) {
    const st = await again.evaluate(async (id) => {
      const me = JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}");
      const r = await fetch("/tabuleiro.match.v1.MatchService/GetMatch", {
        method: "POST", headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${me.token}` }, body: JSON.stringify({ matchId: id }),
      });
      return r.ok ? (await r.json()).match?.status : `HTTP ${r.status}`;
    }, matchId);
    if (st === "MATCH_STATUS_FINISHED") break;
    assert.ok(Date.now() < deadline, `the game was never called off (status ${st})`);
    await again.waitForTimeout(1000);
  }
  await again.goto(`${server.url}/#/game/${matchId}`);
  await again.waitForSelector(".board-box[data-status='FINISHED'] svg");
  await again.waitForSelector(".bottom-strip .pname", { state: "attached" });
  assert.match((await again.locator("#status-line, .info").first().textContent()) ?? "", /aborted/i);
  // Give a countdown time to be drawn, if one were.
  await again.waitForTimeout(1500);
  await shot(again, "tryout2-aborted-bar");
  assert.equal(await again.locator(".strip .away").count(), 0, "no 'away · s to return' on a finished game");
  const name = again.locator(".bottom-strip .pname");
  assert.equal(await name.textContent(), "Wanderer");
  const nb = await boxOf(name, "the player's name");
  const yb = await boxOf(again.locator(".bottom-strip .you"), "the 'you' badge");
  const cb = await boxOf(again.locator(".bottom-strip .seat-colour"), "the seat's colour");
  assert.ok(nb.width >= 40, `the name is shown, not squeezed away (${nb.width} px)`);
  assert.ok(yb.x >= nb.x + nb.width - 0.5, `the 'you' badge is after the name, not over it (${yb.x} < ${nb.x + nb.width})`);
  assert.ok(cb.x >= yb.x + yb.width - 0.5, `'White' is after the badge, not over it (${cb.x} < ${yb.x + yb.width})`);
  await ctx.close();
});

test("by keyboard a wall that cannot go where the cursor is shows red, and the hint says why; a placeable one does not; wall mode starts on a placeable wall", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Keyboarder");
  await page.click(`label.game-card[data-game="Quoridor"]`);
  await page.click(`label.chip:has-text("Bot")`);
  await page.click(`label.chip[data-level="Easy"]`);
  await page.click("label.chip:has-text('White (first)')");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  let info = await waitTurn(page);
  await page.focus(".board-box");
  await page.keyboard.press("w");
  await page.keyboard.press("ArrowUp");
  // A free groove: the server says yes, the wall is drawn as placeable.
  await page.waitForSelector(".board-box rect.kbd-cursor.valid");
  assert.equal(await page.locator(".hint.refused").count(), 0, "no refusal in the hint for a placeable wall");
  await shot(page, "tryout2-kb-wall-valid");
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) > n, info.plyCount);
  info = await waitTurn(page);
  assert.ok(!info.finished);
  // W again: the cursor stood on the wall just placed (an overlap, Q3.2);
  // it goes to the nearest wall that can be placed (as the terminal's
  // does), drawn as placeable, with no refusal in the hint.
  await page.focus(".board-box");
  await page.keyboard.press("w");
  const cursor = page.locator(".board-box rect.kbd-cursor");
  // (Drawn red at first, on the wall just placed, until the server lists the legal walls.)
  await page.waitForSelector(".board-box rect.kbd-cursor.valid");
  const placed = await page.locator(".board-box rect.wall[data-placed-by=white]").getAttribute("data-wall");
  const start = (await cursor.getAttribute("data-wall"))!;
  assert.notEqual(start, placed);
  const from = parseWall(start)!;
  const to = parseWall(placed!)!;
  assert.ok(Math.abs(from.anchor.file - to.anchor.file) + Math.abs(from.anchor.rank - to.anchor.rank) + (from.orientation === to.orientation ? 0 : 1) <= 2,
    `${start} is a nearest legal wall to ${placed}`);
  assert.equal(await page.locator(".hint.refused").count(), 0, "no refusal in the hint");
  // Moved back onto the wall just placed by the keys, the cursor stays
  // there: red, and the hint says why.
  await wallCursorTo(page, placed!, info.flipped);
  const bad = page.locator(".board-box rect.kbd-cursor.invalid");
  await bad.waitFor();
  assert.equal(await bad.getAttribute("data-wall"), placed);
  assert.equal(await bad.getAttribute("stroke"), "#c0392b", "ringed in red");
  const hint = page.locator(".hint.refused");
  await page.waitForFunction(() => /^Wall [a-h][1-8][hv]: .*\(Q3\.\d\)/.test(document.querySelector(".hint.refused")?.textContent ?? ""));
  const text = (await hint.textContent()) ?? "";
  // The same wall again ("already on the board"), or one overlapping or crossing it.
  assert.match(text, /already on the board|overlap|cross/i, `the reason is the overlap: ${JSON.stringify(text)}`);
  await shot(page, "tryout2-kb-wall-invalid");
  // Turned across it, at the same centre: a cross (Q3.3), still red.
  await page.keyboard.press("r");
  await page.waitForSelector(".board-box rect.kbd-cursor.invalid");
  // One step aside, a free groove again: no longer red.
  await page.keyboard.press("r");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await page.waitForSelector(".board-box rect.kbd-cursor.valid");
  assert.equal(await page.locator(".hint.refused").count(), 0, "the refusal left with the wall");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

test("a click where the mouse hovered places the wall the hover drew, even a fraction of a pixel past a column's centre", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Pointer");
  await page.click(`label.game-card[data-game="Quoridor"]`);
  await page.click(`label.chip:has-text("Bot")`);
  await page.click(`label.chip[data-level="Easy"]`);
  await page.click("label.chip:has-text('White (first)')");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  const info = await waitTurn(page);
  const l = layout(Game.QUORIDOR, info.flipped);
  // In the groove above rank 4, at file e's centre: left of it the
  // pointer proposes d4h, from it on e4h. Chromium reports a pointer move
  // to a fraction of a pixel and the click at the whole pixel below it:
  // the hover is put just right of the centre, its click's pixel left of it.
  const centre = await toPage(page, { x: squareCenter(l, parseSquare("e4")!).x, y: wallCenter(l, parseWall("e4h")!).y });
  const frac = centre.x - Math.floor(centre.x);
  assert.ok(frac > 0, `file e's centre falls on a whole pixel (${centre.x}): pick another viewport for this test`);
  const x = centre.x + (1 - frac) / 2;
  await page.mouse.move(x, centre.y, { steps: 3 });
  const preview = page.locator(".board-box .wall-preview");
  await page.waitForSelector(".board-box .wall-preview.valid");
  const at = async () => Number(await preview.getAttribute("x"));
  const hovered = await at();
  assert.equal(hovered, wallRect(l, parseWall("e4h")!).x, "the hover draws e4h");
  await page.mouse.click(x, centre.y);
  // The click either places a wall or (as it did) previews another.
  await page.waitForFunction(([n, hx]) => {
    const b = document.querySelector<HTMLElement>(".board-box");
    const p = b?.querySelector(".wall-preview");
    return Number(b?.dataset.plyCount) > n || (p && Number(p.getAttribute("x")) !== hx);
  }, [info.plyCount, hovered] as const);
  const placed = await page.locator(".board-box rect.wall[data-placed-by=white]").evaluateAll((els) => els.map((e) => e.getAttribute("data-wall")));
  const shown = await preview.count() ? wallRect(l, parseWall("d4h")!).x === await at() ? "d4h" : String(await at()) : "none";
  assert.deepEqual(placed, ["e4h"], `the click placed the hovered wall (walls ${placed}, preview now ${shown})`);
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
  await shot(page, "tryout2-watch-no-ring");
  await player.page.click("#resign");
  await player.page.click("#resign-confirm");
  await player.ctx.close();
  await ctx.close();
});

test("the rules page: a readable column with no empty half page beside it, and no developer text", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${server.url}/#/rules/quoridor/Q3.2`);
  await page.waitForSelector(".rules-doc h4.target");
  await shot(page, "tryout2-rules-desk");
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
  await shot(page, "tryout2-rules-phone");
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
  for (const t of await page.locator(".board-box svg text.coord").all()) {
    const b = await t.boundingBox();
    assert.ok(b && b.x >= board.x - 0.5 && b.x + b.width <= board.x + board.width + 0.5 && b.y >= board.y - 0.5 && b.y + b.height <= board.y + board.height + 0.5, "a coordinate stays on the board");
  }
  await shot(page, "tryout2-phone-coords");
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
  await shot(page, "tryout2-phone-result");
  await ctx.close();
});
