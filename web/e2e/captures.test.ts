// Banqi's captured pieces in the player bars, in the browser: the caption
// says whose captures they are, for the player ("by you") and for a
// spectator (by colour); sixteen captures stay inside their bar, the name
// and "to move" readable, for the players, a spectator and on a phone;
// and a declined draw offer is said, by whom. Screenshots go to
// web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { matchRpc, startBot, startLocal, tokens } from "./play";

serveAndLaunch();

/** rpc calls the match API as a page's signed-in player or with a token. */
const rpc = (who: Page | string, method: string, body: object): Promise<any> => matchRpc(server.url, who, method, body);

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
  await shot(page, `captures-banqi-captures-${who}`);
}

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
  await shot(page, "captures-banqi-captured-player");
  const watcher = await newPlayer(browser, server.url);
  await signIn(watcher.page, "Onlooker");
  await watcher.page.goto(`${server.url}/#/watch/${matchId}`);
  await watcher.page.waitForSelector(".strip .captured");
  for (const strip of await watcher.page.locator(".strip:has(.captured)").all()) {
    const colour = (await strip.locator(".seat-colour").textContent())!;
    assert.match(colour, /^(Red|Black)$/);
    assert.equal(await strip.locator(".captured-caption").textContent(), `Captured by ${colour}`);
  }
  await shot(watcher.page, "captures-banqi-captured-spectator");
  if ((await page.locator("#resign").count()) > 0) {
    await page.click("#resign");
    await page.click("#resign-confirm");
  }
  await watcher.ctx.close();
  await ctx.close();
});

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
