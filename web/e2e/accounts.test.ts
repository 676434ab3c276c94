// Accounts in the browser, against a real `tabuleiro serve`: a guest
// plays a game against the bot, claims an account with a password, and a
// second browser context (another device) signs in with it and sees the
// same history and stats; it lists both sign-ins and signs out
// everywhere, which sends the first back to the sign-in page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { listText, resignedBotGame } from "./play";

serveAndLaunch();

test("a guest claims an account with a password; another device signs in to the same history and stats, then signs out everywhere", async () => {
  const a = await newPlayer(browser, server.url);
  await signIn(a.page, "Ana Conta");
  const { history, stats } = await resignedBotGame(a.page);

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
  // The guest's sign-in and the password's are named alike: the browser and its system, not the raw user agent.
  assert.deepEqual(await b.page.locator("#sessions li.session strong").allTextContents(), ["Chrome (Linux)", "Chrome (Linux)"]);
  await shot(b.page, "41-account-sessions");
  await b.page.click("#sign-out-everywhere");
  await b.page.waitForSelector("#name");
  await a.page.click("nav a[href='#/history']");
  await a.page.waitForSelector("#name");
  assert.equal(await a.page.evaluate(() => localStorage.getItem("tabuleiro.identity")), null, "the first device forgot the account");
  await a.ctx.close();
  await b.ctx.close();
});
