// A guest's games follow its player into an account (lobby.v1
// MergeGuest): a browser holds a guest that played a game; its player
// signs in there to an account made elsewhere, is offered to bring the
// guest's games along, accepts, and sees the game in the account's
// history. And the lobby says why a fresh guest cannot queue rated yet.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { listText, resignedBotGame } from "./play";

serveAndLaunch();

/** claim makes the signed-in guest of page the account username (from its account page). */
async function claim(page: Page, username: string, password: string): Promise<void> {
  await page.click("#who-account");
  await page.fill("#claim-username", username);
  await page.fill("#claim-password", password);
  await page.click("#claim-submit");
  await page.waitForSelector(`#account-username:has-text('@${username}')`);
}

test("a guest plays a game; its player signs in to an account in the same browser, accepts the merge and finds the game in the account's history", async () => {
  // The account, made on another device; it has played nothing.
  const other = await newPlayer(browser, server.url);
  await signIn(other.page, "Rui Conta");
  await claim(other.page, "rui_merge", "uma senha longa");
  await other.ctx.close();

  // This browser's guest plays the bot and resigns; the history lists
  // the game once the match service recorded it.
  const a = await newPlayer(browser, server.url);
  await signIn(a.page, "Visita Rui");
  await resignedBotGame(a.page);

  // Signing in from the guest's account page offers the merge.
  await a.page.click("#who-account");
  await a.page.click("#claim-login-link");
  await a.page.fill("#login-username", "rui_merge");
  await a.page.fill("#login-password", "uma senha longa");
  await a.page.click("#login-submit");
  await a.page.waitForSelector("#merge-offer");
  assert.equal(await a.page.locator("#merge-lead").innerText(),
    "This browser played 1 finished game as the guest Visita Rui. Bring it into your account's history and stats?");
  await shot(a.page, "merge-01-offer");
  await a.page.click("#merge-yes");
  await a.page.waitForSelector("#merge-done:has-text('1 game is now in your account.')");
  await a.page.click("#merge-continue");
  await a.page.waitForSelector("#start");
  assert.equal((await a.page.locator("#who-account").innerText()).trim(), "rui_merge", "an account is shown by its username");
  const history = await listText(a.page, "#/history");
  assert.match(history, /Bot/, "the guest's game is in the account's history");
  await shot(a.page, "merge-02-history");

  // Another device signed in to the account sees it too.
  const b = await newPlayer(browser, server.url);
  await b.page.click("#login-link");
  await b.page.fill("#login-username", "rui_merge");
  await b.page.fill("#login-password", "uma senha longa");
  await b.page.click("#login-submit");
  await b.page.waitForSelector("#start");
  assert.equal(await listText(b.page, "#/history"), history, "the account's history on another device");
  await a.ctx.close();
  await b.ctx.close();
});

test("a fresh guest asking for a rated pairing is told why not yet, in its language, under a title that says so", async () => {
  for (const [locale, want, title, casual, queued] of [
    ["en-US", "A guest plays rated games after 3 casual games or one day: you have finished 0, and rated play opens in 24 h.", "No rated game for now", "Look for a casual game", "In the queue"],
    ["pt-BR", "Um convidado joga partidas valendo rating depois de 3 partidas casuais ou de um dia: você terminou 0, e elas se abrem em 24 h.", "Sem partidas valendo rating por enquanto", "Procurar partida sem rating", "Na fila"],
  ] as const) {
    const p = await newPlayer(browser, server.url, { locale });
    await signIn(p.page, "Nova Visita");
    await p.page.click(`label.game-card[data-game="Quoridor"]`);
    await p.page.click(`label.chip[data-choice="opp:queue"]`);
    await p.page.check("label.check input[type=checkbox]"); // rated
    await p.page.click("#start");
    await p.page.waitForSelector(`#queue-status:has-text("${want}")`);
    assert.equal(await p.page.locator(".queue .spinner").count(), 0, "the queue no longer spins");
    // Not "Looking for an opponent" above the refusal: the search is over.
    assert.equal(await p.page.locator(".queue h1").textContent(), title);
    await shot(p.page, `merge-03-rated-refused-${locale}`);
    // Not a dead end: nothing is left to cancel, and one click queues for
    // a casual game instead.
    assert.equal(await p.page.locator(".queue button", { hasText: /^(Cancel|Cancelar)$/ }).count(), 0, "no Cancel once the search is over");
    assert.equal(await p.page.locator("#queue-again").textContent(), casual);
    await p.page.click("#queue-again");
    await p.page.waitForSelector(`#queue-status:has-text("${queued}")`);
    await p.ctx.close();
  }
});
