// The end of a game in the browser: the result dialog opens by itself (no
// "Show result" button beside it; closed, the button brings it back); a
// game called off while its player was away shows the name bar as usual,
// with no countdown to return; a game at one device is not called off
// while its first ply is slow to come. (The result's words after a
// resignation are in lobby.test.ts's queue test.) Screenshots go to
// web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boxOf, playOne, startBot, waitTurn } from "./play";

serveAndLaunch();

test("at a game's end the result dialog is open without a 'Show result' button beside it; closed, the button brings it back", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Finisher");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  await playOne(page);
  await waitTurn(page);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  await shot(page, "result-open");
  assert.equal(await page.locator(".game-actions button:has-text('Show result')").count(), 0, "no 'Show result' while the result shows");
  await page.click(".result-card button:has-text('Close')");
  await page.waitForSelector(".result-overlay", { state: "hidden" });
  const again = page.locator(".game-actions button:has-text('Show result')");
  await again.waitFor();
  await again.click();
  await page.waitForSelector(".result-card");
  assert.equal(await page.locator(".game-actions button:has-text('Show result')").count(), 0, "shown again, the button goes again");
  await ctx.close();
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
  await shot(again, "result-aborted-bar");
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

test("a game at one device is not called off while its first ply is slow to come: no abort warning, a far first-ply deadline", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Couch");
  await page.click(`label.game-card[data-game="Corners"]`);
  await page.click(`label.chip:has-text("Two players, one device")`);
  await page.click("label.chip:has-text('No clock')");
  await page.click("#start");
  await page.waitForURL(/#\/local\//);
  await waitTurn(page);
  await page.waitForSelector(".hint:not(:empty)");
  const hint = (await page.locator(".hint").first().textContent()) ?? "";
  assert.doesNotMatch(hint, /aborted|called off/, `no abort warning at one device: ${JSON.stringify(hint)}`);
  assert.equal(await page.locator(".first-ply").count(), 0, "no first-ply countdown at one device");
  // The server's own deadline for the first ply: as far off as an untimed bot game's (days), not seconds.
  const matchId = page.url().split("/").pop()!;
  const left = await page.evaluate(async (id) => {
    const me = JSON.parse(localStorage.getItem("tabuleiro.identity") ?? "{}");
    const r = await fetch("/tabuleiro.match.v1.MatchService/GetMatch", {
      method: "POST", headers: { "content-type": "application/json", "connect-protocol-version": "1", authorization: `Bearer ${me.token}` }, body: JSON.stringify({ matchId: id }),
    });
    const m = (await r.json()).match;
    return Date.parse(m.firstPlyDeadline) - Date.now();
  }, matchId);
  assert.ok(left > 24 * 3600_000, `the first ply may come in days, not seconds (${Math.round(left / 1000)} s left)`);
  await shot(page, "result-one-device-waiting");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await ctx.close();
});
