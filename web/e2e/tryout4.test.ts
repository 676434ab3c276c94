// What a new player met in a fourth tryout, each checked in the browser:
// the mouse places walls the same way with the Wall button on or off
// (hover draws, one click places) and a wall that can go where it is shown
// is named in the hint. Screenshots go to web/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { clickHere, pointWall, startBot, waitTurn, walls } from "./play";

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
  await page.waitForFunction((n) => {
    const b = document.querySelector<HTMLElement>(".board-box");
    return !!b && (Number(b.dataset.plyCount) > n || b.dataset.status === "FINISHED");
  }, after);
}

async function hintIs(page: Page, text: string): Promise<void> {
  try {
    await page.waitForFunction((t) => document.querySelector(".board-tools .hint")?.textContent === t, text);
  } catch (err) {
    throw new Error(`the hint is ${JSON.stringify(await page.locator(".board-tools .hint").textContent())}, not ${JSON.stringify(text)}: ${err}`);
  }
}

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
  await shot(page, "60-wall-mode-hover");
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
