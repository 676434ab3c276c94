// The web client against a real `tabuleiro serve`, in Debian's chromium:
// a whole Quoridor game against the easy bot by clicks (walls included),
// a room game between two browser contexts joined by the invite link, a
// reload in the middle of a game, and a Banqi game whose page and network
// frames never hold a face-down piece's identity. Screenshots of every
// screen go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boardBox, boardInfo, boxOf, clickHere, clickSquare, destinations, distance, pawns, plyEach, pointWall, tapWall, waitTurn, wallCursorTo, walls } from "./play";
import { parseSquare, squareName, toCell } from "../src/geometry";

serveAndLaunch();

async function choose(page: Page, game: string, opponent: string, level?: string): Promise<void> {
  await page.click(`label.game-card[data-game="${game}"]`);
  await page.click(`label.chip:has-text("${opponent}")`);
  if (level) await page.click(`label.chip[data-level="${level}"]`);
}

async function waitPly(page: Page, after: number): Promise<void> {
  try {
    await page.waitForFunction((n) => {
      const b = document.querySelector<HTMLElement>(".board-box");
      return !!b && (Number(b.dataset.plyCount) > n || b.dataset.status === "FINISHED");
    }, after, { timeout: 120_000 });
  } catch (err) {
    const toast = await page.locator("#toast").textContent().catch(() => "");
    const banner = await page.locator(".conn-banner").textContent().catch(() => "");
    await shot(page, `failed-${Date.now()}`);
    throw new Error(`no ply after ${after} (toast ${JSON.stringify(toast)}, banner ${JSON.stringify(banner)}): ${err}`);
  }
}

/** tryWall points at candidate walls until the preview says one is valid, and places it. */
async function tryWall(page: Page, candidates: string[], flipped: boolean, shotName?: string): Promise<string | undefined> {
  for (const w of candidates) {
    await pointWall(page, w, flipped);
    const preview = page.locator(".board-box .wall-preview:not(.checking)");
    try {
      await preview.waitFor({ timeout: 60_000 });
    } catch {
      continue;
    }
    const cls = (await preview.getAttribute("class")) ?? "";
    if (!cls.includes("valid") || cls.includes("invalid")) continue;
    if (shotName) await shot(page, shotName);
    const before = (await boardInfo(page)).plyCount;
    await clickHere(page);
    await waitPly(page, before);
    return w;
  }
  return undefined;
}

/** wallsNear lists walls across the opponent's way to its goal, nearest first. */
function wallsNear(pawn: string, goingUp: boolean): string[] {
  const f = pawn.charCodeAt(0) - 97;
  const r = Number(pawn.slice(1)) - 1;
  const rank = goingUp ? r : r - 1; // the groove in front of the pawn
  const out: string[] = [];
  for (const dr of [0, goingUp ? 1 : -1, goingUp ? 2 : -2]) {
    for (const df of [0, -1, 1, -2, 2]) {
      const af = f + df, ar = rank + dr;
      if (af >= 0 && af <= 7 && ar >= 0 && ar <= 7) out.push(`${squareName(af, ar)}h`);
    }
  }
  return out;
}

async function stepTowardsGoal(page: Page, goalRank: number): Promise<void> {
  await page.waitForSelector(".board-box circle.dest", { timeout: 60_000 });
  const ds = await destinations(page);
  const ws = await walls(page);
  ds.sort((a, b) => distance(a, goalRank, ws) - distance(b, goalRank, ws));
  const { flipped, plyCount } = await boardInfo(page);
  await clickSquare(page, Game.QUORIDOR, ds[0], flipped);
  await waitPly(page, plyCount);
}

test("a guest plays a whole Quoridor game against the easy bot, by clicks, walls included", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await shot(page, "01-sign-in");
  await signIn(page, "Ana");
  await choose(page, "Quoridor", "Bot", "Easy");
  await shot(page, "02-lobby");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  let placed = 0;
  let turns = 0;
  for (;;) {
    const info = await waitTurn(page, 60_000);
    if (info.finished) break;
    turns++;
    assert.ok(turns < 150, "the game ends");
    if (turns === 1) {
      await page.waitForSelector(".board-box circle.dest");
      await shot(page, "03-quoridor-your-turn");
      const hint = (await page.locator(".hint").first().textContent()) ?? "";
      assert.match(hint, /click/i, `a mouse's hint says click: ${JSON.stringify(hint)}`);
      assert.doesNotMatch(hint, /\btap\b/i, `a mouse's hint has no touch words: ${JSON.stringify(hint)}`);
    }
    const myGoal = info.flipped ? 1 : 9;
    if (placed < 3 && turns % 2 === 1) {
      const p = await pawns(page);
      const theirs = info.flipped ? p.white : p.black;
      const w = await tryWall(page, wallsNear(theirs, info.flipped), info.flipped, placed === 0 ? "04-quoridor-wall-preview" : undefined);
      if (w) {
        placed++;
        assert.ok((await walls(page)).some((x) => `${squareName(x.anchor.file, x.anchor.rank)}${x.orientation}` === w), `wall ${w} on the board`);
        if (placed === 1) await shot(page, "05-quoridor-wall-placed");
        continue;
      }
    }
    await stepTowardsGoal(page, myGoal);
    if (turns === 8) await shot(page, "06-quoridor-midgame");
  }
  assert.ok(placed >= 1, "at least one wall placed by pointer");
  await page.waitForSelector(".result-card");
  const title = await page.locator("#result-title").textContent();
  assert.match(title ?? "", /You (won|lost)/);
  await shot(page, "07-quoridor-result");
  // The record is in history and replays ply by ply.
  await page.click(".result-card a:has-text('Replay')");
  await page.waitForSelector(".replay-nav");
  const total = await page.locator(".moves button.ply").count();
  assert.ok(total >= 2 * turns - 2, `the replay lists the plies (${total})`);
  await page.keyboard.press("Home");
  await page.waitForSelector(".counter:has-text('Ply 0 of')");
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector(".counter:has-text('Ply 1 of')");
  await shot(page, "08-replay");
  await page.click("nav a[href='#/history']");
  await page.waitForSelector(".summary");
  await shot(page, "09-history");
  await page.click("nav a[href='#/stats']");
  await page.waitForSelector(".bot-tables");
  const easy = await page.locator(".bot-table:has(h3:has-text('Quoridor')) tr:has(td:has-text('Easy')) td").allTextContents();
  assert.equal(easy.slice(1).map(Number).reduce((a, b) => a + b, 0), 1, `one game against the easy bot counted (${easy})`);
  await shot(page, "10-stats");
  await ctx.close();
});

test("two browser contexts play a room game joined by the invite link", async () => {
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Host");
  await choose(host.page, "Quoridor", "Room");
  await host.page.click("#start");
  const link = await host.page.locator("#invite-link").inputValue({ timeout: 60_000 });
  assert.match(link, /#\/join\/[A-Za-z0-9]+\?pw=/);
  await shot(host.page, "11-room-invite");
  // A signed-in player opening the link is told who invites to what, and
  // may decline.
  {
    const other = await newPlayer(browser, server.url);
    await signIn(other.page, "Other");
    await other.page.goto(link);
    await other.page.waitForSelector("#invite-details");
    assert.equal(await other.page.locator("#invite-details").textContent(), "Host invites you to Quoridor (Standard), no clock.");
    await shot(other.page, "11b-invite-signed-in");
    await other.page.click("#decline-invite");
    await other.page.waitForURL(/#\/play/);
    await other.ctx.close();
  }
  const guest = await newPlayer(browser, link);
  // A new player opening the link is told it is an invitation, with its code.
  const code = /#\/join\/([A-Za-z0-9]+)/.exec(link)![1];
  await guest.page.waitForSelector("#invite-title");
  assert.equal(await guest.page.locator("#invite-code").textContent(), code);
  await guest.page.waitForSelector("#invite-details:not([hidden])");
  assert.equal(await guest.page.locator("#invite-details").textContent(), "Host invites you to Quoridor (Standard), no clock.");
  await shot(guest.page, "12-join-sign-in");
  await signIn(guest.page, "Guest", false); // the link goes on to the room, then the game
  await guest.page.waitForURL(/#\/game\//, { timeout: 60_000 });
  await host.page.waitForURL(/#\/game\//, { timeout: 60_000 });
  // Without a clock the first ply still has its seconds, counted down
  // beside the name of whoever is to move.
  {
    const [a, b] = await Promise.all([boardInfoWhenReady(host.page), boardInfoWhenReady(guest.page)]);
    const mover = a.acting ? host.page : b.acting ? guest.page : undefined;
    assert.ok(mover, "one of the two is to move");
    await mover!.waitForFunction(() => /^\d+ s$/.test(document.querySelector(".bottom-strip .first-ply")?.textContent ?? ""), undefined, { timeout: 30_000 });
    await shot(mover!, "12b-room-first-ply-no-clock");
  }
  // Four plies, each by whoever is to move, by clicks.
  for (let i = 0; i < 4; i++) {
    const [a, b] = await Promise.all([boardInfoWhenReady(host.page), boardInfoWhenReady(guest.page)]);
    const mover = a.acting ? host.page : b.acting ? guest.page : undefined;
    assert.ok(mover, "one of the two is to move");
    const info = await boardInfo(mover!);
    await stepTowardsGoal(mover!, info.flipped ? 1 : 9);
    await waitPly(host.page, info.plyCount);
    await waitPly(guest.page, info.plyCount);
  }
  await shot(host.page, "13-room-host");
  await shot(guest.page, "14-room-guest");
  // A link away from a game against a person asks first: leaving starts
  // the reconnection window, then the game is lost by abandonment.
  const at = guest.page.url();
  await guest.page.click("nav a[href='#/history']");
  await guest.page.waitForSelector("[aria-label='Confirm leaving the game']:has-text('lose it by abandonment')");
  assert.equal(guest.page.url(), at, "still on the game while asked");
  await shot(guest.page, "14b-leave-game-question");
  await guest.page.click("#leave-cancel");
  await guest.page.waitForSelector("#resign");
  assert.equal(guest.page.url(), at, "Stay keeps the game");
  await guest.page.click("#resign");
  await guest.page.click("#resign-confirm");
  await host.page.waitForSelector("#result-title:has-text('You won')");
  await guest.page.waitForSelector("#result-title:has-text('You lost')");
  await shot(host.page, "15-room-result");
  // Both ask for a rematch (lobby.v1 OfferRematch): a new game, seats swapped.
  const first = host.page.url();
  const hostSeat = await host.page.locator(".bottom-strip").getAttribute("data-seat");
  await guest.page.click("#rematch");
  await host.page.waitForSelector(".rematch-note:has-text('wants a rematch')");
  await host.page.click("#rematch");
  await host.page.waitForURL((u) => u.toString() !== first && /#\/game\//.test(u.toString()), { timeout: 60_000 });
  await guest.page.waitForURL((u) => u.toString() !== first && /#\/game\//.test(u.toString()), { timeout: 60_000 });
  assert.equal(host.page.url(), guest.page.url(), "both in the rematch");
  await host.page.waitForSelector(".board-box svg");
  await host.page.waitForFunction((s) => document.querySelector(".bottom-strip")?.getAttribute("data-seat") !== s, hostSeat);
  await host.ctx.close();
  await guest.ctx.close();
});

async function boardInfoWhenReady(page: Page) {
  await page.waitForSelector(".board-box svg");
  return boardInfo(page);
}

test("a page reload mid-game comes back to the same game", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Reloader");
  await choose(page, "Quoridor", "Bot", "Easy");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  for (let i = 0; i < 2; i++) {
    const info = await waitTurn(page);
    await stepTowardsGoal(page, info.flipped ? 1 : 9);
  }
  await waitTurn(page);
  const url = page.url();
  const before = await boardInfo(page);
  const moves = await page.locator(".moves .ply:not(.empty)").allTextContents();
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem("tabuleiro.game") ?? "{}"));
  assert.ok(Number(saved.lastSeq) > 0, `the last seq is kept (${saved.lastSeq})`);
  await page.reload();
  await page.waitForSelector(".board-box svg");
  await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) >= n, before.plyCount);
  assert.equal(page.url(), url);
  assert.deepEqual(await page.locator(".moves .ply:not(.empty)").allTextContents(), moves, "the same plies");
  await shot(page, "16-after-reload");
  const info = await waitTurn(page);
  assert.equal(info.plyCount, before.plyCount);
  // This ply by keyboard: arrows from the pawn to a destination next to it, then Enter.
  await page.waitForSelector(".board-box circle.dest");
  const mine = info.flipped ? (await pawns(page)).black : (await pawns(page)).white;
  const ds = await destinations(page);
  const d = { files: 9, ranks: 9 };
  const from = toCell(parseSquare(mine)!, d, info.flipped);
  const step = ds.map((x) => toCell(parseSquare(x)!, d, info.flipped)).find((c) => Math.abs(c.col - from.col) + Math.abs(c.row - from.row) === 1);
  assert.ok(step, `a destination next to the pawn (${ds})`);
  await page.focus(".board-box");
  const key = step.col > from.col ? "ArrowRight" : step.col < from.col ? "ArrowLeft" : step.row > from.row ? "ArrowDown" : "ArrowUp";
  await page.keyboard.press(key);
  await page.waitForSelector(".board-box .kbd-cursor");
  await page.keyboard.press("Enter");
  await waitPly(page, info.plyCount);
  const after_ = await waitTurn(page);
  assert.ok(after_.plyCount >= before.plyCount + 2, "play goes on after the reload");
  // Someone else watches the game live.
  const watcher = await newPlayer(browser, server.url);
  await signIn(watcher.page, "Watcher");
  await watcher.page.click("nav a[href='#/watch']");
  const matchId = url.split("/").pop()!;
  await watcher.page.click(`.summary[data-match="${matchId}"] a:has-text('Watch')`);
  await watcher.page.waitForSelector(".board-box svg");
  await watcher.page.waitForFunction((n) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) >= n, after_.plyCount);
  assert.equal(await watcher.page.locator("#resign").count(), 0, "a spectator has no resign button");
  await shot(watcher.page, "17-watch");
  await watcher.ctx.close();
  await ctx.close();
});

test("a lost network comes back to the same game, nothing lost", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Offline");
  await choose(page, "Quoridor", "Bot", "Easy");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  const info = await waitTurn(page);
  await stepTowardsGoal(page, info.flipped ? 1 : 9);
  const before = await waitTurn(page);
  await page.waitForSelector(".board-box circle.dest");
  await ctx.setOffline(true);
  const ds = await destinations(page);
  await clickSquare(page, Game.QUORIDOR, ds[0], before.flipped);
  await page.waitForSelector("#toast.error");
  await page.waitForSelector(".conn-banner.reconnecting");
  await shot(page, "17b-offline");
  assert.equal((await boardInfo(page)).plyCount, before.plyCount, "nothing was played while offline");
  await ctx.setOffline(false);
  await stepTowardsGoal(page, before.flipped ? 1 : 9);
  const after_ = await waitTurn(page);
  assert.ok(after_.plyCount >= before.plyCount + 2, "the game goes on, the bot's reply included");
  await ctx.close();
});

test("a Banqi game shows no face-down identity in the page or its network frames", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  // Keep every response body the page receives (Connect frames included).
  await ctx.addInitScript(() => {
    const frames: string[] = [];
    (window as any).__frames = frames;
    const orig = window.fetch;
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      const res = await orig(...args);
      if (!res.body) return res;
      const [a, b] = res.body.tee();
      (async () => {
        const r = b.getReader();
        const dec = new TextDecoder();
        for (;;) {
          const { done, value } = await r.read();
          if (done) break;
          frames.push(dec.decode(value));
        }
      })();
      return new Response(a, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  });
  await page.reload();
  await signIn(page, "Dark");
  await choose(page, "Banqi", "Bot", "Easy");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  let reveals = 0;
  for (let i = 0; i < 6; i++) {
    const info = await waitTurn(page);
    if (info.finished) break;
    const down = await page.locator(".board-box g.face-down").evaluateAll((els) => els.map((e) => e.getAttribute("data-sq-piece")!));
    assert.ok(down.length > 0);
    await clickSquare(page, Game.BANQI, down[Math.floor(down.length / 2)], false);
    await waitPly(page, info.plyCount);
    reveals++;
  }
  await waitTurn(page);
  await shot(page, "18-banqi");
  // The page: face-down discs are alike and carry no piece.
  const downs = await page.locator(".board-box g.face-down").evaluateAll((els) =>
    els.map((e) => ({ kind: e.getAttribute("data-piece-kind"), text: e.textContent?.trim() ?? "", inner: e.innerHTML.replace(/[\d.]+/g, "N") })));
  assert.ok(downs.length >= 32 - 2 * reveals - 1);
  for (const d of downs) {
    assert.equal(d.kind, null);
    assert.equal(d.text, "");
  }
  assert.equal(new Set(downs.map((d) => d.inner)).size, 1, "every face-down disc is drawn the same");
  // The network: no layout, no seed, and face-down cells are empty messages.
  const frames: string[] = await page.evaluate(() => (window as any).__frames);
  const text = frames.join("\n");
  assert.ok(text.includes("faceDown"), "the frames were captured");
  assert.doesNotMatch(text, /"layout":"[A-Za-z]/, "no layout before the end");
  assert.doesNotMatch(text, /"seed":"[0-9a-f]/, "no seed before the end");
  for (const m of text.matchAll(/"faceDown":(\{[^}]*\})/g)) assert.equal(m[1], "{}");
  const revealedCells = [...text.matchAll(/"cells":\[(.*?)\]/g)].map((m) => (m[1].match(/"revealed"/g) ?? []).length);
  assert.ok(revealedCells.length > 0);
  assert.ok(Math.max(...revealedCells) <= 2 * reveals + 1, "no view shows more pieces than were revealed");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  await shot(page, "19-banqi-result");
  await ctx.close();
});

test("two players at one keyboard play Corners (no draw offer) and one resigns; the finished board has no dots", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Left");
  await choose(page, "Corners", "Two players, one device");
  await page.click("#start");
  await page.waitForURL(/#\/local\//);
  // The keyboard's cursor shows at the first Enter, on a piece of the side to move (no arrow needed first).
  await waitTurn(page);
  await page.focus(".board-box");
  assert.equal(await page.locator(".board-box .kbd-cursor").count(), 0);
  await page.keyboard.press("Enter");
  await page.waitForSelector(".board-box .kbd-cursor");
  const cur = await boxOf(page.locator(".board-box .kbd-cursor"), "the keyboard cursor");
  const centre = { x: cur.x + cur.width / 2, y: cur.y + cur.height / 2 };
  const onWhite = await page.locator(".board-box g.piece.white").evaluateAll((els, c) => els.some((e) => {
    const r = e.getBoundingClientRect();
    return c.x >= r.left && c.x <= r.right && c.y >= r.top && c.y <= r.bottom;
  }), centre);
  assert.ok(onWhite, "the cursor starts on one of white's pieces");
  // Four plies, each seat's by clicks on its own piece and a destination.
  for (let i = 0; i < 4; i++) {
    const info = await waitTurn(page);
    assert.ok(info.acting, "one of this keyboard's seats is always to move");
    const pieces = await page.locator(`.board-box g.piece.${info.plyCount % 2 === 0 ? "white" : "black"}`).evaluateAll((els) => els.map((e) => e.getAttribute("data-piece")!));
    let moved = false;
    for (const p of pieces) {
      // A piece that cannot move says so (a toast); one that can shows its destinations.
      await page.evaluate(() => { const t = document.getElementById("toast"); if (t) t.textContent = ""; });
      await clickSquare(page, Game.CORNERS, p, info.flipped);
      await page.waitForSelector(`.board-box circle.dest, #toast:has-text("cannot move")`);
      if (!(await page.locator(".board-box circle.dest").count())) continue;
      const ds = await destinations(page);
      await clickSquare(page, Game.CORNERS, ds[0], info.flipped);
      await waitPly(page, info.plyCount);
      moved = true;
      break;
    }
    assert.ok(moved, "some piece could move");
  }
  // One device has no draw offer (its two players just agree); the seat to move
  // picks a piece, then resigns: the board behind the result shows no dots or selection.
  assert.equal(await page.locator("#offer-draw").count(), 0, "no Offer draw on one device");
  const info = await waitTurn(page);
  const pieces = await page.locator(".board-box g.piece.white").evaluateAll((els) => els.map((e) => e.getAttribute("data-piece")!));
  for (const p of pieces) {
    await page.evaluate(() => { const t = document.getElementById("toast"); if (t) t.textContent = ""; });
    await clickSquare(page, Game.CORNERS, p, info.flipped);
    await page.waitForSelector(`.board-box circle.dest, #toast:has-text("cannot move")`);
    if (await page.locator(".board-box circle.dest").count()) break;
  }
  assert.ok(await page.locator(".board-box circle.dest").count(), "a piece is selected, its dots shown");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector("#result-title");
  await shot(page, "23-local-resigned");
  assert.equal(await page.locator(".board-box circle.dest").count(), 0, "no move dots behind the result");
  assert.equal(await page.locator(`.board-box [fill="#5c9a4a"]`).count(), 0, "no selected piece behind the result");
  await ctx.close();
});

test("two players meet in the rated queue; the result says why new players' game is not rated", async () => {
  const a = await newPlayer(browser, server.url);
  const b = await newPlayer(browser, server.url);
  await signIn(a.page, "Queue A");
  await signIn(b.page, "Queue B");
  // Fresh guests may not queue rated (merge.test.ts): accounts may, and
  // the ratings processor still judges their games.
  for (const [p, username] of [[a.page, "queue_a"], [b.page, "queue_b"]] as const) {
    await p.click("#who-account");
    await p.fill("#claim-username", username);
    await p.fill("#claim-password", "a long password");
    await p.click("#claim-submit");
    await p.waitForSelector(`#account-username:has-text('@${username}')`);
    await p.click("nav a[href='#/play']");
    await p.waitForSelector("#start");
  }
  for (const p of [a.page, b.page]) {
    await choose(p, "Quoridor", "Quick pairing");
    assert.equal(await p.locator("#queue-clock-note").textContent(), "Quick pairing games are always timed.", "the lobby says why No clock is gone");
    await p.click("label.chip:has-text('5+3')");
    // Unticked, the box says the game would be casual; ticked, that note goes.
    assert.match((await p.locator("#casual-note").textContent()) ?? "", /^Casual game: ratings do not change\./, "an unticked Rated box says the game is casual");
    await p.check("label.check input[type=checkbox]"); // rated
    await p.waitForSelector("#casual-note", { state: "detached" });
    await p.click("#start");
  }
  await a.page.waitForSelector(".queue, .board-box", { timeout: 60_000 }).catch(async (e) => {
    await shot(a.page, "failed-queue");
    throw new Error(`no queue screen (toast ${JSON.stringify(await a.page.locator("#toast").textContent().catch(() => ""))}): ${e}`);
  });
  await shot(a.page, "24-queue");
  await a.page.waitForURL(/#\/game\//, { timeout: 60_000 });
  await b.page.waitForURL(/#\/game\//, { timeout: 60_000 });
  assert.equal(a.page.url().split("/").pop(), b.page.url().split("/").pop(), "the same match");
  await a.page.waitForSelector(".clock");
  // A ply each first: a game resigned before that is aborted, never rated.
  await plyEach([a.page, b.page]);
  await a.page.click("#resign");
  await a.page.click("#resign-confirm");
  await b.page.waitForSelector("#result-title:has-text('You won')");
  // Two fresh identities are new players: the result says why the game
  // asked to be rated changed no rating (docs/api.md, "Ratings").
  await b.page.waitForSelector(".rating-change[data-unrated='new_player']:has-text('Not rated: a player is new here')", { timeout: 120_000 });
  await a.page.waitForSelector(".rating-change[data-unrated='new_player']", { timeout: 120_000 });
  await shot(b.page, "24b-rated-result");
  await a.ctx.close();
  await b.ctx.close();
});

test("phone-sized screens: the landing page's name field, the lobby and a game fit", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  // The landing page: the name field and its Play button are on the first
  // screen (390x844), above the decorative board, not below it.
  const field = await boxOf(page.locator("#name"), "the name field");
  const play = await boxOf(page.locator("form.signin button[type=submit]"), "the Play button");
  const art = await boxOf(page.locator(".hero-art svg"), "the board art");
  await shot(page, "24-phone-landing");
  for (const [what, b] of [["the name field", field], ["the Play button", play]] as const) {
    assert.ok(b.y >= 0 && b.y + b.height <= 844, `${what} is within the first screen (${b.y}-${b.y + b.height} of 844)`);
    assert.ok(b.y + b.height <= art.y, `${what} (ends at ${b.y + b.height}) is above the board art (starts at ${art.y})`);
  }
  await signIn(page, "Phone");
  await shot(page, "25-phone-lobby");
  await choose(page, "Corners", "Bot", "Easy");
  await page.click("label.chip:has-text('3+2')");
  await page.click("label.chip:has-text('Black (second)')"); // the bot's first ply starts the clocks
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  await waitTurn(page);
  // The clock on move ticks locally between the server's updates.
  const clock = page.locator(".clock.running");
  const t1 = await clock.textContent();
  await page.waitForFunction((t) => document.querySelector(".clock.running")?.textContent !== t, t1, { timeout: 60_000 });
  const box = await boardBox(page);
  assert.ok(box.width <= 390 && box.width > 300, `the board fits the screen (${box.width})`);
  await shot(page, "26-phone-corners");
  await ctx.close();
});

test("on a phone, a wall goes down with the Wall button and two taps", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true });
  await signIn(page, "Thumbs");
  await choose(page, "Quoridor", "Bot", "Easy");
  await page.click("label.chip:has-text('White (first)')");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  const info = await waitTurn(page);
  assert.equal(info.flipped, false);
  await page.tap("#wall-mode");
  await page.waitForSelector("#wall-mode.on");
  await tapWall(page, "d7h", false);
  await page.waitForSelector(".board-box .wall-preview.valid");
  await shot(page, "27-phone-wall-preview");
  await tapWall(page, "d7h", false);
  await waitPly(page, info.plyCount);
  assert.ok((await walls(page)).some((w) => w.anchor.file === 3 && w.anchor.rank === 6 && w.orientation === "h"), "d7h placed");
  // A placed wall ends wall mode; without it, two taps on a gap place a wall too (as the hint says).
  const next = await waitTurn(page);
  assert.ok(!next.finished);
  assert.equal(await page.locator("#wall-mode.on").count(), 0, "wall mode ended with the wall");
  assert.match((await page.locator(".hint").first().textContent()) ?? "", /tap between squares twice/);
  let second = false;
  for (const w of ["a3h", "g3h", "c4v", "f4v"]) {
    await tapWall(page, w, false);
    const preview = page.locator(".board-box .wall-preview:not(.checking)");
    await preview.waitFor();
    const cls = (await preview.getAttribute("class")) ?? "";
    if (cls.includes("invalid")) continue;
    await tapWall(page, w, false);
    await waitPly(page, next.plyCount);
    second = true;
    break;
  }
  assert.ok(second, "a wall placed by two taps without the Wall button");
  // The replay opens at its top, as the game does: the opponent's bar and
  // the board's top row are not under the sticky header, whether it is
  // opened from History or loaded by its link.
  // A record long enough that its move list ends below the first screen.
  const matchId = page.url().split("/").pop()!;
  for (;;) {
    const now = await waitTurn(page);
    if (now.finished || now.plyCount >= 18) break;
    await page.waitForSelector(".board-box circle.dest");
    const ds = await destinations(page);
    await clickSquare(page, Game.QUORIDOR, ds[ds.length - 1], now.flipped);
    await waitPly(page, now.plyCount);
  }
  if (!(await boardInfo(page)).finished) {
    await page.tap("#resign");
    await page.tap("#resign-confirm");
  }
  await page.waitForSelector(".result-card");
  await page.tap("nav a[href='#/history']");
  await page.tap(`a[href='#/replay/${matchId}']`);
  for (const how of ["from History", "by its link"]) {
    if (how === "by its link") {
      await page.goto(`${server.url}/#/replay/${matchId}`);
      await page.reload();
    }
    await page.waitForSelector(".replay-nav");
    // A replay opens at its start: ply 0, the plies listed.
    await page.waitForSelector(".counter:has-text('Ply 0 of')");
    await page.waitForSelector(".moves button.ply");
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
    const y = await page.evaluate(() => window.scrollY);
    const header = await boxOf(page.locator("header.top"), "the header");
    const top = await boxOf(page.locator(".top-strip"), "the opponent's bar");
    await shot(page, `27b-phone-replay-${how === "from History" ? "history" : "link"}`);
    assert.equal(y, 0, `the replay opened ${how} is at its top (scrolled ${y} px)`);
    assert.ok(top.y >= header.y + header.height - 0.5, `the opponent's bar is below the header (${top.y} < ${header.y + header.height}), opened ${how}`);
  }
  await ctx.close();
});

test("by keyboard one Enter places a wall and a refused wall says why; the Watch list refreshes by itself", async () => {
  // Someone is on the Watch page before the game starts: it must appear there without a reload.
  const watcher = await newPlayer(browser, server.url);
  await signIn(watcher.page, "Lookout");
  await watcher.page.click("nav a[href='#/watch']");
  await watcher.page.waitForSelector("#live-updated:has-text('Updated')");
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Keys");
  await choose(page, "Quoridor", "Bot", "Easy");
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
  const matchId = page.url().split("/").pop()!;
  await watcher.page.waitForSelector(`#live-list .summary[data-match="${matchId}"]`, { timeout: 60_000 });
  await shot(watcher.page, "30-watch-list-refreshed");
  await watcher.ctx.close();

  // W, an arrow to put the cursor (and the wall drawn at it) in front of the pawn, one Enter.
  let info = await waitTurn(page);
  // The board has the focus from the start: no click needed for the keys.
  assert.ok(await page.evaluate(() => document.activeElement?.classList.contains("board-box")), "the board has the focus when the game starts");
  await page.keyboard.press("w");
  await page.keyboard.press("ArrowUp");
  await page.waitForSelector(".board-box .kbd-cursor");
  const wallsBefore = (await walls(page)).length;
  const placed = (await page.locator(".board-box rect.kbd-cursor").getAttribute("data-wall"))!;
  await page.keyboard.press("Enter");
  await waitPly(page, info.plyCount);
  assert.equal((await walls(page)).length >= wallsBefore + 1, true, "one Enter placed the wall");
  // The placed wall ended wall mode; W again, the cursor back on the same wall, and it is refused: the toast gives the server's reason.
  info = await waitTurn(page);
  assert.ok(!info.finished);
  assert.equal(await page.locator("#wall-mode.on").count(), 0, "a placed wall ends wall mode");
  await page.focus(".board-box");
  await page.keyboard.press("w");
  await page.waitForSelector("#wall-mode.on");
  // Wall mode starts on the nearest placeable wall: back onto the one just placed.
  await page.waitForSelector(".board-box rect.kbd-cursor.valid");
  await wallCursorTo(page, placed, info.flipped);
  await page.keyboard.press("Enter");
  const toast = page.locator("#toast.error");
  await toast.waitFor();
  const text = (await toast.textContent()) ?? "";
  assert.match(text, /^Wall [a-h][1-8][hv]: \S/, `a refused wall names itself and the reason: ${JSON.stringify(text)}`);
  assert.doesNotMatch(text, /cannot go there\.$/);
  assert.equal((await boardInfo(page)).plyCount, info.plyCount, "nothing was played");
  await shot(page, "31-wall-refused-reason");
  // A legal ply next: the refusal is stale and leaves the screen with it.
  await page.keyboard.press("w");
  await page.waitForSelector("#wall-mode.on", { state: "detached" });
  await stepTowardsGoal(page, info.flipped ? 1 : 9);
  assert.equal(await page.locator("#toast.show.error").count(), 0, "an accepted ply clears the refusal before it");
  // Another page does not carry the refusal along.
  await page.click("nav a[href='#/history']");
  await page.waitForURL(/#\/history/);
  assert.equal(await page.locator("#toast.show").count(), 0, "the toast left with its page");
  await ctx.close();
});

test("a guest is warned before signing out that the account cannot be recovered", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Leaver");
  await page.click("#sign-out");
  await page.waitForSelector(".signout-confirm:has-text('cannot be recovered')");
  await shot(page, "32-sign-out-warning");
  await page.click("#sign-out-cancel");
  await page.waitForSelector("#sign-out");
  assert.ok(await page.evaluate(() => !!localStorage.getItem("tabuleiro.identity")), "still signed in after Stay");
  await page.click("#sign-out");
  await page.click("#sign-out-confirm");
  await page.waitForSelector("#name");
  await ctx.close();
});
