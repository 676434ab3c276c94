// The pages' layout in the browser, in the three languages: on a phone
// (390x844) no main route is wider than the screen, and the stats page's
// tables stay inside their card; at 1280x800 the header's texts are
// readable on the walnut (WCAG AA, 4.5:1) and the lobby's "join a
// friend's room" card has no blank gaps; a spectator on a phone reads
// "watching" once, and no empty band lies under the board. Screenshots go
// to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import webCatalogs from "catalogs:web";
import { render, type Params } from "../src/i18n";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boxOf, startBot } from "./play";

type Catalog = Record<string, string | Record<string, string>>;
const catalogs = webCatalogs as Record<string, Catalog>;
const tr = (tag: string, key: string, params?: Params) => render(catalogs as Parameters<typeof render>[0], tag, key, params);

serveAndLaunch();

/** The main routes a signed-in player reaches from the header and the account link. */
const ROUTES = ["play", "watch", "history", "stats", "rules", "account", "device"];

/** overflow is how many CSS pixels the page is wider than the phone's 390. */
async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - 390);
}

for (const [locale, tag] of [["pt-BR", "pt-BR"], ["en-US", "en"], ["es-ES", "es"]]) {
  test(`on a phone in ${tag} no main route is wider than the screen, and the stats tables fit their card`, async () => {
    const { ctx, page } = await newPlayer(browser, server.url, { phone: true, locale });
    await signIn(page, `Narrow ${tag.slice(0, 2)}`);
    assert.equal(await page.evaluate(() => document.documentElement.lang), tag, "the page speaks the browser's language");
    for (const route of ROUTES) {
      await page.goto(`${server.url}/#/${route}`);
      // Each route's own content is drawn (not the previous route's).
      await page.waitForFunction((r) => location.hash === `#/${r}` && !!document.querySelector("main > *"), route);
      if (route === "stats") await page.waitForSelector(".bot-tables table");
      else await page.waitForLoadState("networkidle");
      assert.ok(await overflow(page) <= 0, `#/${route} in ${tag} is ${await overflow(page)} px wider than the phone`);
    }
    await page.goto(`${server.url}/#/stats`);
    await page.waitForSelector(".bot-tables table");
    await shot(page, `layout-phone-stats-${tag}`);
    // Every column heading (the last: DERROTAS, PERDIDAS) is inside the card.
    const card = await boxOf(page.locator("main .panel").first(), "the stats card");
    for (const th of await page.locator(".bot-tables th:last-child").all()) {
      const b = await boxOf(th, "a last column heading");
      assert.ok(b.x + b.width <= card.x + card.width, `"${await th.textContent()}" ends at ${b.x + b.width}, past the card's ${card.x + card.width}`);
    }
    await ctx.close();
  });
}

/** luminance is a colour's relative luminance (WCAG 2). */
function luminance(rgb: number[]): number {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: number[], b: number[]): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test("at 1280x800 the header's texts are readable on the walnut (4.5:1), and the join card has no blank gaps", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "Contraste");
  await shot(page, "layout-lobby-1280");
  // The header's gradient: its lighter end is the worst case.
  const walnut = [0x46, 0x32, 0x1f];
  const texts = await page.evaluate(() => [...document.querySelectorAll("header.top .brand, header.top nav a, header.top .who-name, header.top #sign-out, header.top select")]
    .map((e) => ({ what: `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${e.className} "${(e.textContent ?? "").trim().slice(0, 20)}"`, colour: getComputedStyle(e).color })));
  assert.ok(texts.some((x) => x.what.includes("who-name")), "the username is in the header");
  for (const { what, colour } of texts) {
    const rgb = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
    const c = contrast(rgb, walnut);
    assert.ok(c >= 4.5, `${what} (${colour}) has contrast ${c.toFixed(2)}:1 on the walnut header, under 4.5:1`);
  }
  // Join a friend's room: code, password, button, one under the other, close together.
  const code = await boxOf(page.locator("#code"), "the code field");
  const pw = await boxOf(page.locator("#code-pw"), "the password field");
  const join = await boxOf(page.locator("#code").locator("xpath=ancestor::form").locator("button[type=submit]"), "the Join button");
  assert.ok(pw.y - (code.y + code.height) <= 16, `${pw.y - (code.y + code.height)} px between the code and the password`);
  assert.ok(join.y - (pw.y + pw.height) <= 16, `${join.y - (pw.y + pw.height)} px between the password and the button`);
  await ctx.close();
});

test("a spectator on a phone reads 'watching' once, and no blank band lies between the bottom bar and the info card", async () => {
  const player = await newPlayer(browser, server.url);
  await signIn(player.page, "Watched One");
  const matchId = await startBot(player.page, "Quoridor");
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true, locale: "pt-BR" });
  await signIn(page, "Olhadora");
  await page.goto(`${server.url}/#/watch/${matchId}`);
  await page.waitForSelector(".board-box svg");
  const meta = page.locator(".game-info p.muted").first();
  await meta.waitFor();
  await shot(page, "layout-phone-spectator-pt");
  const line = (await meta.textContent()) ?? "";
  const word = tr("pt-BR", "meta.spectating");
  assert.equal(line.split(word).length - 1, 1, `"${word}" once in "${line}"`);
  const bar = await boxOf(page.locator(".bottom-strip"), "the bottom player bar");
  const card = await boxOf(page.locator(".game-panel"), "the info card");
  // The columns' gap (1.2rem) and no more.
  assert.ok(card.y - (bar.y + bar.height) <= 24, `${card.y - (bar.y + bar.height)} px between the bottom bar and the info card`);
  await ctx.close();
  await player.page.click("#resign");
  await player.page.click("#resign-confirm");
  await player.ctx.close();
});
