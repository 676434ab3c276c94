// Usernames and public profiles in the browser, against a real
// `tabuleiro serve`: a guest claims an account and plays a public room
// game against a guest on a phone; the account is shown by its username
// on both game screens and in the Watch list, as a link to its profile;
// once the game is over the other player opens that profile from their
// history (at 390 px wide); anyone opens it by its link, signed in or not,
// in any letter case and language; an unknown username says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { plyEach } from "./play";

serveAndLaunch();

/** noSideScroll fails when the page is wider than its viewport (a phone scrolls sideways). */
async function noSideScroll(page: Page, what: string): Promise<void> {
  const [scroll, width] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= width, `${what}: the page is ${scroll} px wide in a ${width} px viewport`);
}

test("an account is shown by its username in games, Watch and history, and its profile opens from there", async () => {
  // Ana claims an account.
  const ana = await newPlayer(browser, server.url);
  await signIn(ana.page, "Ana Perfil");
  await ana.page.click("#who-account");
  await ana.page.fill("#claim-username", "ana_perfil");
  await ana.page.fill("#claim-password", "uma senha longa");
  await ana.page.click("#claim-submit");
  await ana.page.waitForSelector("#account-username:has-text('@ana_perfil')");
  assert.equal((await ana.page.locator("#who-account").innerText()).trim(), "ana_perfil", "the header shows the account by its username");
  assert.equal(await ana.page.locator("#account-profile").getAttribute("href"), "#/u/ana_perfil");

  // Bia, a guest on a phone, joins Ana's public room.
  const bia = await newPlayer(browser, server.url, { phone: true });
  await signIn(bia.page, "Bia");
  await ana.page.click("nav a[href='#/play']");
  await ana.page.click(`label.game-card[data-game="Quoridor"]`);
  await ana.page.click(`label.chip[data-choice="opp:friend"]`);
  await ana.page.click(`label.chip[data-choice="room:public"]`);
  await ana.page.click("#start");
  await ana.page.waitForSelector("#room-listed");
  const room = bia.page.locator("#open-rooms .open-room");
  await room.waitFor();
  assert.equal(await room.locator(".summary-title").textContent(), "ana_perfil", "the room's host by username");
  await bia.page.click("#open-rooms .open-room button.join-room");
  await bia.page.waitForURL(/#\/game\//);
  await ana.page.waitForURL(/#\/game\//);
  const matchId = bia.page.url().split("/").pop()!;

  // Both game screens name the account by its username, linked; the
  // guest's name is no link.
  for (const page of [ana.page, bia.page]) {
    const link = page.locator(".strip .pname a.player-link");
    await link.waitFor();
    assert.equal(await link.count(), 1, "one seat is an account's");
    assert.equal(await link.textContent(), "ana_perfil");
    assert.equal(await link.getAttribute("href"), "#/u/ana_perfil");
    assert.equal(await page.locator(".strip .pname", { hasText: "Bia" }).locator("a").count(), 0, "a guest has no profile");
  }
  await shot(bia.page, "profiles-01-phone-game-username");

  // A third person watches the live games: the account's name links there too.
  const caio = await newPlayer(browser, server.url);
  await signIn(caio.page, "Caio");
  await caio.page.click("nav a[href='#/watch']");
  const live = caio.page.locator(`#live-list .summary[data-match="${matchId}"] a.player-link[data-username="ana_perfil"]`);
  await live.waitFor();
  assert.equal(await live.textContent(), "ana_perfil");

  // The game is played, and Ana resigns.
  await plyEach([ana.page, bia.page]);
  await ana.page.click("#resign");
  await ana.page.click("#resign-confirm");
  await bia.page.waitForSelector("#result-line");

  // Bia's history names Ana by username; the name opens her profile.
  await bia.page.click("nav a[href='#/history']");
  const fromHistory = bia.page.locator(`.summary[data-match="${matchId}"] a.player-link[data-username="ana_perfil"]`);
  for (;;) {
    // The record is written a moment after the end.
    if (await fromHistory.count()) break;
    await bia.page.waitForTimeout(300);
    if (!(await bia.page.locator("#history-saving").count())) await bia.page.reload();
  }
  await shot(bia.page, "profiles-02-phone-history");
  await fromHistory.click();
  await bia.page.waitForURL(/#\/u\/ana_perfil$/);
  await bia.page.waitForSelector("#profile");
  assert.equal(await bia.page.locator("#profile h1").textContent(), "ana_perfil");
  assert.match((await bia.page.locator("#profile-since").textContent()) ?? "", /^Playing since /);
  const game = bia.page.locator(`#profile-games .summary[data-match="${matchId}"]`);
  await game.waitFor();
  assert.match(await game.innerText(), /Quoridor/);
  assert.equal(await game.locator(".result").textContent(), "Lost", "the result is the profile's: Ana resigned");
  assert.match(await bia.page.locator("#profile table").last().innerText(), /Quoridor\s+0\s+0\s+1/, "the record: 0 won, 0 drawn, 1 lost");
  assert.equal(await bia.page.title(), "ana_perfil · Tabuleiro");
  await noSideScroll(bia.page, "the profile on a phone");
  await shot(bia.page, "profiles-03-phone-profile");

  // Anyone opens it by its link, signed in or not, in any letter case; in
  // Portuguese, the page speaks Portuguese.
  const visitor = await newPlayer(browser, server.url, { phone: true, locale: "pt-BR" });
  await visitor.page.goto(`${server.url}/#/u/ANA_Perfil`);
  await visitor.page.waitForSelector("#profile");
  assert.equal(await visitor.page.locator("#profile h1").textContent(), "ana_perfil");
  assert.match(await visitor.page.locator("#profile").innerText(), /Partidas recentes/);
  assert.match((await visitor.page.locator("#profile-since").textContent()) ?? "", /^Joga desde /);
  assert.equal(await visitor.page.locator("#profile-games a[href^='#/replay/']").count(), 0, "a record is read signed in");
  await noSideScroll(visitor.page, "the profile in Portuguese on a phone");
  await visitor.page.goto(`${server.url}/#/u/ninguem_aqui`);
  await visitor.page.waitForSelector("#profile-missing");
  assert.match(await visitor.page.locator("#profile-missing").innerText(), /Nenhuma conta tem o nome de usuário ninguem_aqui/);

  for (const c of [ana, bia, caio, visitor]) await c.ctx.close();
});
