// Placing Quoridor walls in the browser. By mouse: hovering a groove draws
// the wall and one click places it, with the Wall button on or off, and
// the click places the very wall the hover drew (even a fraction of a
// pixel past a column's centre); a placeable wall is named in the hint.
// By keyboard: W starts on a placeable wall, and a wall that cannot go
// where the cursor is shows red with the reason in the hint. (A whole game
// by clicks, one Enter placing a wall, and walls by two taps on a phone
// are in web.test.ts.) Screenshots go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { clickHere, layout, pointWall, startBot, toPage, waitPly, waitTurn, wallCursorTo, walls } from "./play";
import { parseSquare, parseWall, squareCenter, wallCenter, wallRect } from "../src/geometry";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";

serveAndLaunch();

async function hintIs(page: Page, text: string): Promise<void> {
  try {
    await page.waitForFunction((t) => document.querySelector(".board-tools .hint")?.textContent === t, text);
  } catch (err) {
    throw new Error(`the hint is ${JSON.stringify(await page.locator(".board-tools .hint").textContent())}, not ${JSON.stringify(text)}: ${err}`);
  }
}

test("a wall clicked while its hover's check is on the way goes down after the answer: no check reaches the server after the ply (no STALE_PLY)", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Racer");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  const info = await waitTurn(page);
  // A slow line for the checks: each reaches the server 800 ms late, after
  // a ply sent at once would have been taken.
  const checks: { ply: string; expected: number; status?: number }[] = [];
  await page.route("**/tabuleiro.match.v1.MatchService/ListLegalPlies", async (route) => {
    const body = JSON.parse(route.request().postData() ?? "{}");
    const c: { ply: string; expected: number; status?: number } = { ply: body.ply ?? "", expected: Number(body.expectedPlyNumber ?? 0) };
    checks.push(c);
    if (c.ply) await new Promise((r) => setTimeout(r, 800));
    const resp = await route.fetch();
    c.status = resp.status();
    await route.fulfill({ response: resp });
  });
  await page.click("#wall-mode");
  await page.waitForSelector("#wall-mode.on");
  await pointWall(page, "d6h", info.flipped);
  await page.waitForSelector(".board-box .wall-preview");
  await clickHere(page);
  await waitPly(page, info.plyCount);
  assert.ok((await walls(page)).some((w) => w.anchor.file === 3 && w.anchor.rank === 5 && w.orientation === "h"), "the click placed d6h");
  await page.waitForFunction(() => !document.querySelector(".board-box")?.classList.contains("busy"));
  await page.waitForTimeout(1500); // any check still on its way
  assert.ok(checks.some((c) => c.ply === "d6h"), `the hover asked about d6h: ${JSON.stringify(checks)}`);
  const stale = checks.filter((c) => c.status !== undefined && c.status >= 400);
  assert.deepEqual(stale, [], "no check was refused (a stale ply number)");
  await page.unroute("**/tabuleiro.match.v1.MatchService/ListLegalPlies");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});

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
  await shot(page, "walls-wall-mode-hover");
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
  await shot(page, "walls-kb-wall-valid");
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
  await shot(page, "walls-kb-wall-invalid");
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
