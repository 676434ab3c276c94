// Accounts in the browser, against a real `tabuleiro serve`: a guest
// plays a game against the bot, claims an account with a password, and a
// second browser context (another device) signs in with it and sees the
// same history and stats; it lists both sign-ins and signs out
// everywhere, which sends the first back to the sign-in page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launch, newPlayer, serve, shot, signIn, type Server } from "./harness";
import { plyEach, startBot } from "./play";

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

/** listText is the text of a page's list after it loaded (history, stats). */
async function listText(page: Page, route: string): Promise<string> {
  await page.click(`nav a[href='${route}']`);
  await page.waitForURL(new RegExp(route.replace("/", "\\/")));
  await page.waitForFunction(() => !document.querySelector("main .muted")?.textContent?.match(/Loading/));
  return (await page.locator("main").innerText()).trim();
}

test("a guest claims an account with a password; another device signs in to the same history and stats, then signs out everywhere", async () => {
  const a = await newPlayer(browser, server.url);
  await signIn(a.page, "Ana Conta");
  await startBot(a.page, "Quoridor", { seat: "White (first)" });
  await plyEach([a.page]);
  await a.page.click("#resign");
  await a.page.click("#resign-confirm");
  await a.page.waitForSelector("#result-line");
  await a.page.click("nav a[href='#/play']");
  await a.page.waitForSelector("#start");
  // The history lists the game once the match service recorded it.
  let history = "";
  for (;;) {
    history = await listText(a.page, "#/history");
    if (history.includes("Bot")) break;
    await a.page.waitForTimeout(200);
  }
  const stats = await listText(a.page, "#/stats");

  // Claim: a look-alike of no one, so accepted; then the account page.
  await a.page.click("#who-account");
  await a.page.fill("#claim-username", "ana_conta");
  await a.page.fill("#claim-password", "short");
  await a.page.click("#claim-submit");
  await a.page.waitForSelector("#claim-error:has-text('8 characters or more')");
  await a.page.fill("#claim-password", "uma senha longa");
  await a.page.fill("#claim-username", "ab");
  await a.page.click("#claim-submit");
  await a.page.waitForSelector("#claim-error:has-text('must be 3 to 24 characters')");
  await a.page.fill("#claim-username", "ana_conta");
  await a.page.fill("#claim-password", "uma senha longa");
  await shot(a.page, "40-account-claim");
  await a.page.click("#claim-submit");
  await a.page.waitForSelector("#account-username:has-text('@ana_conta')");
  assert.equal((await a.page.locator("#who-account").innerText()).trim(), "ana_conta", "an account is shown by its username");

  // Another device: a wrong password is refused, the right one signs in
  // as the same player.
  const b = await newPlayer(browser, server.url);
  await b.page.click("#login-link");
  await b.page.fill("#login-username", "ANA_CONTA");
  await b.page.fill("#login-password", "not the password");
  await b.page.click("#login-submit");
  await b.page.waitForSelector("#login-error:has-text('Wrong username or password')");
  await b.page.fill("#login-password", "uma senha longa");
  await b.page.click("#login-submit");
  await b.page.waitForSelector("#start");
  assert.equal((await b.page.locator("#who-account").innerText()).trim(), "ana_conta");
  // The same games and stats, the account now shown by its username (in
  // the games it played as a guest too).
  const named = (s: string) => s.replaceAll("Ana Conta", "ana_conta");
  assert.equal(await listText(b.page, "#/history"), named(history), "the second device's history");
  assert.equal(await listText(b.page, "#/stats"), named(stats), "the second device's stats");

  // Both sign-ins are listed; signing out everywhere ends the first too.
  await b.page.click("#who-account");
  await b.page.waitForFunction(() => document.querySelectorAll("#sessions li.session").length === 2);
  assert.equal(await b.page.locator("#sessions li.session.current").count(), 1);
  await shot(b.page, "41-account-sessions");
  await b.page.click("#sign-out-everywhere");
  await b.page.waitForSelector("#name");
  await a.page.click("nav a[href='#/history']");
  await a.page.waitForSelector("#name");
  assert.equal(await a.page.evaluate(() => localStorage.getItem("tabuleiro.identity")), null, "the first device forgot the account");
  await a.ctx.close();
  await b.ctx.close();
});
