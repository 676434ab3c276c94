// The replay of a finished game in the browser: laid out as the live game
// (the same board size, both player bars, Quoridor's walls left at each
// ply), opened at the start, End and Home, ?ply=N; at 1280x800 its ply
// controls stay on the screen. Screenshots go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boardBox, boxOf, playOne, startBot, waitPly, waitTurn } from "./play";

serveAndLaunch();

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
  await shot(page, "replay-like-live");
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

test("the replay at 1280x800 keeps its ply controls on the screen: the board fits the height", async () => {
  const { ctx, page } = await newPlayer(browser, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "Replayer");
  await startBot(page, "Quoridor", { seat: "White (first)" });
  await playOne(page);
  await playOne(page);
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  await page.click(".result-card a:has-text('Replay')");
  await page.waitForSelector(".replay-nav");
  const nav = await boxOf(page.locator(".replay-nav"), "the ply controls");
  const board = await boardBox(page);
  assert.ok(nav.y + nav.height <= 800, `the ply controls end at ${nav.y + nav.height}, within 800`);
  assert.ok(board.width >= 450, `the board is still large (${board.width})`);
  const total = Number(/of (\d+)/.exec((await page.locator(".counter").textContent()) ?? "")?.[1]);
  assert.ok(total >= 3, `the record has the plies (${total})`);
  await page.click("#last");
  await page.waitForSelector(`.counter:has-text('Ply ${total} of ${total}')`);
  await page.click("#prev");
  await page.waitForSelector(`.counter:has-text('Ply ${total - 1} of ${total}')`);
  await shot(page, "replay-1280x800");
  // A tall window still gets the big board.
  await page.setViewportSize({ width: 1280, height: 1100 });
  const tall = await boardBox(page);
  assert.ok(tall.width > board.width, `a taller window, a larger board (${board.width} → ${tall.width})`);
  await ctx.close();
});
