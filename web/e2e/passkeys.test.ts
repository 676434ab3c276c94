// Passkeys in the browser, against a real `tabuleiro serve` (its relying
// party is its own origin, http://localhost:PORT: a secure context) with
// Chromium's virtual authenticators (the DevTools protocol's WebAuthn
// domain through playwright-core's CDPSession): a guest plays a game,
// claims an account and adds a passkey; a second browser context, whose
// authenticator holds the same credential (WebAuthn.addCredential), signs
// in with the passkey and sees the same history and stats; signing out
// everywhere sends the first back to the sign-in page; the passkey still
// signs in until it is removed, and then it is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { listText, resignedBotGame } from "./play";

serveAndLaunch();

/** authenticator gives a page a virtual platform authenticator (user verifying, resident keys). */
async function authenticator(ctx: BrowserContext, page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true,
      isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, id: authenticatorId };
}

test("a guest claims an account and adds a passkey; another browser signs in with it to the same history and stats", async () => {
  // WebAuthn takes no IP address as a relying party: the page is at localhost.
  const url = server.url.replace("127.0.0.1", "localhost");
  const a = await newPlayer(browser, url);
  const authA = await authenticator(a.ctx, a.page);
  await signIn(a.page, "Rita Chave");
  const { history, stats } = await resignedBotGame(a.page);

  // Claim, then add a passkey on the account page.
  await a.page.click("#who-account");
  await a.page.fill("#claim-username", "rita_chave");
  await a.page.fill("#claim-password", "uma senha comprida");
  await a.page.click("#claim-submit");
  await a.page.waitForSelector("#account-username:has-text('@rita_chave')");
  await a.page.waitForSelector("#passkeys li:has-text('No passkeys yet')");
  await a.page.click("#add-passkey");
  await a.page.waitForSelector("#passkeys li.passkey:has-text('never used yet')");
  assert.equal(await a.page.locator("#passkeys li.passkey").count(), 1);
  await shot(a.page, "42-account-passkey");
  const { credentials } = await authA.cdp.send("WebAuthn.getCredentials", { authenticatorId: authA.id });
  assert.equal(credentials.length, 1, "the authenticator holds one credential");
  assert.equal(credentials[0].rpId, "localhost");
  assert.ok(credentials[0].isResidentCredential, "a discoverable credential (a passkey)");
  // Adding it twice from the same authenticator is declined (excludeCredentials).
  await a.page.click("#add-passkey");
  await a.page.waitForSelector("#passkeys-error:has-text('already holds a passkey')");

  // Another browser whose authenticator holds the same passkey (synced).
  const b = await newPlayer(browser, url);
  const authB = await authenticator(b.ctx, b.page);
  await authB.cdp.send("WebAuthn.addCredential", { authenticatorId: authB.id, credential: credentials[0] });
  await b.page.click("#login-link");
  await b.page.waitForSelector("#login-passkey");
  await shot(b.page, "43-login-passkey");
  await b.page.click("#login-passkey");
  await b.page.waitForSelector("#start");
  assert.equal((await b.page.locator("#who-account").innerText()).trim(), "rita_chave");
  // The same games and stats, the account now shown by its username.
  const named = (s: string) => s.replaceAll("Rita Chave", "rita_chave");
  assert.equal(await listText(b.page, "#/history"), named(history), "the second browser's history");
  assert.equal(await listText(b.page, "#/stats"), named(stats), "the second browser's stats (ratings)");
  await b.page.click("#who-account");
  await b.page.waitForSelector("#passkeys li.passkey:has-text('last used')");
  await b.page.waitForFunction(() => document.querySelectorAll("#sessions li.session").length === 2);

  // Sign out everywhere: the first browser is sent back to sign in.
  await b.page.click("#sign-out-everywhere");
  await b.page.waitForSelector("#name");
  await a.page.click("nav a[href='#/history']");
  await a.page.waitForSelector("#name");

  // The passkey still signs in; once removed (its last sign-in ends the
  // others' too), it is refused.
  await b.page.click("#login-link");
  await b.page.click("#login-passkey");
  await b.page.waitForSelector("#start");
  await b.page.click("#who-account");
  await b.page.waitForSelector("#passkeys li.passkey");
  b.page.once("dialog", (d) => void d.accept());
  await b.page.click("#passkeys li.passkey button");
  await b.page.waitForSelector("#passkeys li:has-text('No passkeys yet')");
  await b.page.click("#sign-out-everywhere");
  await b.page.waitForSelector("#name");
  await b.page.click("#login-link");
  await b.page.click("#login-passkey");
  await b.page.waitForSelector("#login-error:has-text('No account here has this passkey')");
  await a.ctx.close();
  await b.ctx.close();
});
