// The game review in the browser (lobby.v1 ReviewGame, docs/bots.md
// "Game review"): a short Quoridor game against the bot, where White wastes
// its plies sideways, resigned, then reviewed from the result: the
// progress bar, the evaluation graph, the move list's marks, each seat's
// summary, the selected ply's better ply and the critical moment.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { clickSquare, destinations, startBot, waitTurn } from "./play";

serveAndLaunch();

async function waitPly(page: Page, after: number): Promise<void> {
  await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>(".board-box")?.dataset.plyCount) > n, after);
}

test("review: a finished game's review shows its progress, then the graph, the marks, the summary and the critical moment", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, "Reviewer");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  // White steps sideways, never toward its goal: plies the expert marks.
  for (let i = 0; i < 4; i++) {
    const info = await waitTurn(page);
    await page.waitForSelector(".board-box circle.dest");
    const dests = await destinations(page);
    const sideways = dests.filter((d) => d[1] === "1" && d.length === 2);
    await clickSquare(page, Game.QUORIDOR, sideways[0] ?? dests[0], info.flipped);
    await waitPly(page, info.plyCount);
  }
  await waitTurn(page);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  await page.click("#result-review");
  await page.waitForURL(/#\/replay\/.*review=1/);
  await page.waitForSelector("#review-progress, .eval-graph");
  await page.waitForSelector(".eval-graph", { timeout: 120_000 });
  assert.equal(await page.locator("#review-error").count(), 0, "the review did not fail");
  // The graph: a line over the game and a note under it.
  assert.equal(await page.locator(".eval-graph polyline.g-line").count(), 1);
  assert.match((await page.locator(".graph-note").textContent()) ?? "", /Reviewer's chance to win/);
  // Each seat's summary, and the move list's marks agree with its counts.
  const rows = page.locator(".review-summary tbody tr");
  assert.equal(await rows.count(), 2);
  const counts = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(1).map((td) => Number(td.textContent))));
  const marked = counts.flat().reduce((a, b) => a + b, 0);
  assert.ok(marked > 0, `White's sideways plies are marked (counts ${JSON.stringify(counts)})`);
  assert.equal(await page.locator(".moves .ply .mark").count(), marked, "one mark in the move list per counted ply");
  assert.match((await rows.first().locator(".accuracy").textContent()) ?? "", /^\d+%$/);
  const first = (await page.locator(".moves .ply .mark").first().textContent()) ?? "";
  assert.ok(["?!", "?", "??"].includes(first), `a mark reads ?! ? or ?? (${first})`);
  // The critical moment jumps to its ply, whose judgement shows the better ply.
  await page.click("#critical");
  const ply = await page.locator(".moves button.ply.on").getAttribute("data-ply");
  assert.match((await page.locator("#critical").textContent()) ?? "", new RegExp(`\\b${ply}\\b`));
  await page.waitForSelector("#review-ply strong");
  assert.match((await page.locator("#review-ply").textContent()) ?? "", /Better:|good ply/);
  // The better ply is drawn on the board: a dot where the pawn would have
  // gone, or the wall's outline.
  const best = (await page.locator("#review-ply .best").textContent()) ?? "";
  if (best) {
    const drawn = /^[a-i][1-9][hv]$/.test(best)
      ? await page.locator(".board-box .wall-preview").count()
      : await page.locator(`.board-box [data-dest="${best}"]`).count();
    assert.equal(drawn, 1, `the better ply ${best} is drawn on the board`);
  }
  await shot(page, "review-01-quoridor");
  // A stored review comes back at once on a reload, the same.
  await page.reload();
  await page.waitForSelector(".eval-graph", { timeout: 120_000 });
  assert.equal(await page.locator(".moves .ply .mark").count(), marked);
  await ctx.close();
});
