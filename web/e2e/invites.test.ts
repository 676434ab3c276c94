// Invites and links as a new player met them (a tryout): a public game's
// players get its watch link, not the private game's invite form; an
// invite whose game has started says so to a third person; a room's
// password is typed in a password field, and a retry after a wrong one
// asks nothing twice; a link to no page, or to a game that never was,
// says so. Screenshots go to web/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { startBot } from "./play";

serveAndLaunch();

async function openRoom(page: Page, kind: "public" | "private", password = ""): Promise<void> {
  await page.click(`label.game-card[data-game="Quoridor"]`);
  await page.click(`label.chip[data-choice="opp:friend"]`);
  await page.click(`label.chip[data-choice="room:${kind}"]`);
  if (kind === "private") {
    assert.equal(await page.locator("#room-password").getAttribute("type"), "password", "the room's password is a password field");
    await page.fill("#room-password", password);
  }
  await page.click("#start");
  await page.waitForURL(/#\/room\//);
}

test("a public game offers its watch link, never the private game's invite form; a bot game neither, and no 'rating 0'", async () => {
  const guest = await newPlayer(browser, server.url);
  await signIn(guest.page, "Bruna");
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Ana");
  await openRoom(host.page, "public");
  await guest.page.click("#open-rooms .open-room button.join-room");
  await host.page.waitForURL(/#\/game\//);
  await host.page.waitForSelector("#spectators #watch-link");
  assert.equal(await host.page.locator("#spectator-form").isVisible(), false, "no invite form in a public game");
  assert.equal(await host.page.locator("#spectator-name").isVisible(), false);
  await shot(host.page, "invites-01-public-watch-link");
  await guest.ctx.close();
  await host.ctx.close();

  const { ctx, page } = await newPlayer(browser, server.url);
  await signIn(page, "Carla");
  await startBot(page, "Banqi");
  await page.waitForSelector(".top-strip .pname, .bottom-strip .pname");
  assert.equal(await page.locator("#spectator-form").isVisible(), false, "no invite form against a bot");
  // The Easy bot is the ladder's 0: its name says the level, no badge repeats it.
  assert.equal(await page.locator(".strip .badge").count(), 0);
  const bot = page.locator(".strip .pname", { hasText: "Bot (easy)" });
  assert.ok(await bot.evaluate((el) => el.scrollWidth <= el.clientWidth), "the bot's name is whole");
  await ctx.close();
});

test("an invite whose game has started says so to a third person; a wrong password's retry asks nothing twice", async () => {
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Dora");
  await openRoom(host.page, "private", "figueira42");
  const link = await host.page.locator("#invite-link").inputValue();
  const bare = link.replace(/\?pw=.*$/, "");
  // Edu opens the link without its password, accepts, is refused, types it and is in.
  const other = await newPlayer(browser, server.url);
  await signIn(other.page, "Edu");
  await other.page.goto(bare);
  const retry = other.page.locator("#join-pw");
  await retry.waitFor();
  assert.equal(await retry.getAttribute("type"), "password");
  await other.page.click(".password-field .password-toggle");
  assert.equal(await retry.getAttribute("type"), "text", "Show shows the password");
  await retry.fill("figueira42");
  await other.page.click("form.row button[type=submit]");
  await other.page.waitForURL(/#\/game\//);
  assert.equal(await other.page.locator("#accept-invite").count(), 0, "no second Join/Decline page");
  await host.page.waitForURL(/#\/game\//);
  // A third person with the whole link: the room's game has begun.
  const third = await newPlayer(browser, server.url, { phone: true, locale: "pt-BR" });
  await signIn(third.page, "Júlia");
  await third.page.goto(link);
  await third.page.waitForSelector("#invite-started");
  assert.equal(await third.page.locator("#accept-invite").count(), 0, "no Join button for a game that began");
  assert.match((await third.page.locator("#invite-started").textContent()) ?? "", /já começou/);
  await shot(third.page, "invites-02-used-invite");
  await third.ctx.close();
  await other.ctx.close();
  await host.ctx.close();
});

test("a link to no page says so with the way to the lobby; a game that never was offers no record", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { phone: true, locale: "pt-BR" });
  await signIn(page, "Wagner");
  // The header's menus show their whole words on a phone.
  for (const sel of ["#lang", "#piece-style"]) {
    const fits = await page.locator(sel).evaluate((el: HTMLSelectElement) => {
      const probe = document.createElement("span");
      probe.style.cssText = `position:absolute;visibility:hidden;white-space:nowrap;font:${getComputedStyle(el).font}`;
      probe.textContent = el.selectedOptions[0].textContent;
      document.body.append(probe);
      const w = probe.getBoundingClientRect().width;
      probe.remove();
      return { need: w, have: el.clientWidth };
    });
    assert.ok(fits.have >= fits.need + 16, `${sel} shows its words (${fits.have} px for ${fits.need})`);
  }
  // One header height on every page: the piece menu, shown where Banqi
  // pieces are drawn (the lobby), does not push the links a line down.
  const headerHeight = () => page.locator("header.top").evaluate((el) => Math.round(el.getBoundingClientRect().height));
  assert.ok(await page.locator("#piece-style").isVisible(), "the piece menu on the lobby");
  const withMenu = await headerHeight();
  await page.goto(`${server.url}/#/watch`);
  await page.locator("#piece-style").waitFor({ state: "hidden" });
  assert.equal(await headerHeight(), withMenu, "the header's height without the piece menu");
  await page.goto(`${server.url}/#/nonsense`);
  await page.waitForSelector("#not-found");
  assert.equal(await page.locator("#not-found h1").textContent(), "Página não encontrada");
  assert.equal(await page.locator("#not-found a[href='#/play']").textContent(), "Voltar ao lobby");
  await shot(page, "invites-03-not-found");
  const asked = page.waitForResponse((r) => r.url().includes("GetGame"));
  await page.goto(`${server.url}/#/game/NOTAREALGAME`);
  await asked;
  await page.waitForSelector(".conn-banner");
  assert.equal(await page.locator("#conn-record").isVisible(), false, "no record to open");
  await ctx.close();
});
