// What a new player met in a fifth tryout, each checked in the browser:
// a Corners ply back home after the deadline (C5.2) is marked and asked
// about before it is played, with the move number and the limits in view;
// a private game opened by an outsider says that it may be private; and
// Banqi's captured pieces stay inside their player's bar. Screenshots go
// to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { clickSquare, destinations, waitTurn } from "./play";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";

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

/** rpc calls the match API with a token, as the client does (Connect, JSON). */
async function rpc(token: string, method: string, body: object): Promise<any> {
  const r = await fetch(`${server.url}/tabuleiro.match.v1.MatchService/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const j = await r.json();
  if (!r.ok) throw new Error(`${method}: ${JSON.stringify(j)}`);
  return j;
}

/** tokens are the page's two players at one device: its own, and its partner's. */
async function tokens(page: Page): Promise<{ me: string; partner: string; playerId: string }> {
  return page.evaluate(() => {
    const me = JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}");
    const partner = JSON.parse(localStorage.getItem("tabuleiro.partner") ?? "{}");
    return { me: me.token as string, partner: partner.token as string, playerId: me.playerId as string };
  });
}

/** startLocal starts a game for two players at one device (the host plays white, its first such game). */
async function startLocal(page: Page, game: string, variant?: string): Promise<string> {
  await page.click(`label.game-card[data-game="${game}"]`);
  if (variant) await page.selectOption("#variant", variant);
  await page.click(`label.chip:has-text("Two players, one device")`);
  await page.click("label.chip:has-text('No clock')");
  await page.click("#start");
  await page.waitForURL(/#\/local\//);
  await waitTurn(page);
  return page.url().split("/").pop()!;
}

async function plyCount(page: Page, n: number): Promise<void> {
  await page.waitForFunction((k) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) === k, n);
}

// 40 moves of classic-3x3 in which every piece leaves home in time and
// nobody wins or repeats; at move 41 white's d2 may step back home to c2.
const FORTY_MOVES = "b3-b4 f8-e8 c3-c4 h8-f8-d8 a2-a4 g6-g5 c1-d1 h7-h5 a1-c1-e1 f6-f5 a3-a5 g8-g6-g4 b1-b3-b5 g7-e7 b2-d2 f7-d7 c2-e2 h6-h4-f4 b4-b6 g4-h4 a4-a6-c6 d8-d6 a5-a6 h5-h3 e1-e3 e8-d8 b6-b7 f4-f3 b7-a7 d8-c8 e2-f2 d6-d8-b8 b5-b4 h4-h5 e3-e4 c8-c7 f2-g2 b8-b7 a7-a8 c7-c8 d1-d3 g5-e5-e3-c3-c5-c7-a7-a5 c6-c7 a5-b5 b4-d4 f5-g5 g2-g1 c8-b8 a6-a5 h3-g3 a8-c8 b8-d8-d6 d4-b4-b6 d6-e6 d2-d4-f4 d7-d6 b6-b4-d4-d2 g3-g2 d3-d4 b5-b4 g1-g3 b7-b6 c4-c5 g5-g4 e4-c4 g2-h2 c8-c6-a6-a4 b4-b5 c4-c6-a6 e7-e5 a6-a7 g4-e4-c4-c6-c8 c7-d7 h5-g5 d7-d5 h2-h3 d4-e4 e6-e7 a4-a6-c6-e6 c8-b8".split(" ");

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
  await shot(page, "tryout5-corners-losing-dot");
  // The ply back home is asked about, not played; Cancel keeps the game going.
  await clickSquare(page, Game.CORNERS, "c2", false);
  await page.waitForSelector("#return-confirm");
  assert.match((await page.locator("[aria-label='Confirm a losing move']").textContent()) ?? "", /c2 is in Homebody.s own home.*loses the game/);
  await shot(page, "tryout5-corners-confirm");
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
  await shot(page, "tryout5-corners-lost");
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
  await shot(page, "tryout5-private-game");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForFunction(() => /private/.test(document.querySelector(".conn-banner.failed")?.textContent ?? ""));
  await ctx.close();
  await host.page.click("#resign");
  await host.page.click("#resign-confirm");
  await host.ctx.close();
});

/**
 * stripFits fills a player's bar's captured row up to `pieces` pictures
 * (copies of its last one, as a longer game would add them) and reports how
 * the bar holds it: nothing runs past it, the name is readable, and "to
 * move" clears the captures. One step, between two drawings of the page.
 */
async function stripFits(page: Page, sel: string, pieces: number): Promise<{ overflow: string; name: number; overlap: boolean; shown: number }> {
  return page.locator(sel).evaluate((el, n) => {
    const pics = () => el.querySelectorAll(".captured svg");
    const last = pics()[pics().length - 1];
    while (last && pics().length < n) last.after(last.cloneNode(true));
    const over = [el, ...el.querySelectorAll<HTMLElement>(".strip-extra, .captured")].filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => `${e.className} ${e.scrollWidth}>${e.clientWidth}`);
    const box = el.getBoundingClientRect();
    const outside = [...el.querySelectorAll("svg, span")].filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1 || r.bottom > box.bottom + 1);
    }).map((e) => e.getAttribute("class") ?? e.tagName);
    const name = el.querySelector(".pname")!;
    const clock = el.querySelector(".clock")?.getBoundingClientRect();
    const overlap = !!clock && clock.width > 0 && [...pics()].some((s) => {
      const r = s.getBoundingClientRect();
      return r.right > clock.left && r.left < clock.right && r.bottom > clock.top && r.top < clock.bottom;
    });
    return { overflow: [...over, ...[...new Set(outside)].map((c) => `outside: ${c}`)].join("; "), name: name.scrollWidth - name.clientWidth, overlap, shown: pics().length };
  }, pieces);
}

async function checkStrips(page: Page, who: string): Promise<void> {
  for (const sel of [".top-strip", ".bottom-strip"]) {
    if (!(await page.locator(`${sel} .captured`).count())) continue;
    const f = await stripFits(page, sel, 16);
    assert.equal(f.overflow, "", `${who} ${sel}: nothing runs past the bar`);
    assert.equal(f.name, 0, `${who} ${sel}: the name is not cut`);
    assert.ok(!f.overlap, `${who} ${sel}: 'to move' clears the captures`);
  }
  await shot(page, `tryout5-banqi-captures-${who}`);
}

test("Banqi at desktop width: sixteen captures stay inside their player's bar, the name and 'to move' readable, for the players and a spectator (and on a phone)", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Collector");
  const matchId = await startLocal(page, "Banqi");
  const t = await tokens(page);
  // Played through the API, both seats capturing whenever they can, until
  // each seat has captured, or one has six: the pictures are the real ones.
  for (let i = 0; i < 400; i++) {
    const m = (await rpc(t.me, "GetMatch", { matchId })).match;
    assert.notEqual(m.status, "MATCH_STATUS_FINISHED", "the game goes on");
    const captured: string[] = m.view?.banqi?.captured ?? [];
    const reds = captured.filter((p) => p.startsWith("BANQI_PIECE_RED")).length;
    if ((reds && captured.length - reds) || Math.max(reds, captured.length - reds) >= 6) break;
    const n = (m.view.plyCount ?? 0) + 1;
    const token = m.view.toMove === "SEAT_FIRST" ? t.me : t.partner;
    const legal: any[] = (await rpc(token, "ListLegalPlies", { matchId, expectedPlyNumber: n })).plies ?? [];
    const ply = legal.find((p) => p.kind === "PLY_KIND_CAPTURE") ?? legal.find((p) => p.kind === "PLY_KIND_REVEAL") ?? legal[0];
    await rpc(token, "SubmitPly", { matchId, plyNumber: n, notation: ply.notation });
  }
  await page.waitForFunction(() => document.querySelectorAll(".strip .captured").length > 0);
  await page.waitForTimeout(500);
  await checkStrips(page, "player");
  // A spectator (invited: the game is private) sees the same bars.
  const watcher = await newPlayer(browser, server.url);
  await signIn(watcher.page, "Onlooker Five");
  const wid = (await tokens(watcher.page)).playerId;
  await rpc(t.me, "InviteSpectator", { matchId, playerId: wid });
  await watcher.page.goto(`${server.url}/#/watch/${matchId}`);
  await watcher.page.waitForFunction(() => document.querySelectorAll(".strip .captured").length > 0);
  await watcher.page.waitForTimeout(500);
  await checkStrips(watcher.page, "spectator");
  // A declined draw offer is said, by whom, where the offer was shown.
  await rpc(t.me, "OfferDraw", { matchId });
  await rpc(t.partner, "DeclineDraw", { matchId });
  const seats: any[] = (await rpc(t.me, "GetMatch", { matchId })).match.seats;
  const decliner = seats.find((s) => s.participant.seat === "SEAT_SECOND").participant.displayName;
  await watcher.page.waitForSelector("#draw-declined");
  assert.equal(await watcher.page.locator("#draw-declined").textContent(), `${decliner} declined the draw.`);
  await watcher.ctx.close();
  // And on a phone.
  const phone = await newPlayer(browser, server.url, { phone: true });
  await signIn(phone.page, "Onlooker Phone");
  await rpc(t.me, "InviteSpectator", { matchId, playerId: (await tokens(phone.page)).playerId });
  await phone.page.goto(`${server.url}/#/watch/${matchId}`);
  await phone.page.waitForFunction(() => document.querySelectorAll(".strip .captured").length > 0);
  await phone.page.waitForTimeout(500);
  await checkStrips(phone.page, "phone-spectator");
  await phone.ctx.close();
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});
