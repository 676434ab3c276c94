// Rooms and spectators as the sites we replace have them: a guest opens a
// public room, a second guest sees it in the lobby's open rooms (the list
// updates by itself) and joins in one click; a private room with a
// password of the host's choosing; a player of a private game invites a
// spectator by link, the invited person signs in as a guest and watches
// the board, and the players see who watches. And what a new player met
// (issue 44): reopening the site on one's turn shows it above everything.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browser, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { startBot } from "./play";

serveAndLaunch();

/** openRoom opens a room of Quoridor from the Play screen: public, or private with the password given (empty: generated). */
async function openRoom(page: Page, kind: "public" | "private", password = "", game = "Quoridor"): Promise<void> {
  await page.click(`label.game-card[data-game="${game}"]`);
  await page.click(`label.chip[data-choice="opp:friend"]`);
  await page.click(`label.chip[data-choice="room:${kind}"]`);
  if (kind === "private") await page.fill("#room-password", password);
  await page.click("#start");
  await page.waitForURL(/#\/room\//);
}

test("a guest opens a public room, a second guest sees it listed and joins in one click", async () => {
  // The second guest is in the lobby first: the room appears without a reload.
  const guest = await newPlayer(browser, server.url);
  await signIn(guest.page, "Bruna");
  await guest.page.waitForSelector("#open-rooms #rooms-none");
  // The empty list is on the Play page: it does not send the player to Play.
  const none = (await guest.page.locator("#rooms-none").textContent()) ?? "";
  assert.ok(none.includes("open here") && !none.includes("from Play"), `the empty list says: ${none}`);
  // The Banqi piece style is in the header where Banqi pieces are drawn
  // (the lobby's Banqi card), not on pages without any.
  assert.ok(await guest.page.locator("#piece-style").isVisible(), "the piece style on the lobby");
  for (const route of ["#/history", "#/rules/quoridor", "#/rules/banqi", "#/watch"]) {
    await guest.page.goto(`${server.url}/${route}`);
    await guest.page.waitForFunction(() => !document.querySelector("#open-rooms") && document.querySelector("#main h1"));
    assert.equal(await guest.page.locator("#piece-style").isVisible(), false, `the piece style on ${route}`);
  }
  await guest.page.goto(`${server.url}/#/play`);
  await guest.page.waitForSelector("#open-rooms #rooms-none");
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Ana");
  await host.page.click(`label.game-card[data-game="Quoridor"]`);
  await host.page.click(`label.chip[data-choice="opp:friend"]`);
  await host.page.click(`label.chip[data-choice="room:public"]`);
  await host.page.click(`label.chip[data-choice="clock:2"]`);
  assert.equal(await host.page.locator("#start").textContent(), "Open a public room");
  assert.equal(await host.page.locator("#room-password").count(), 0, "a public room has no password");
  await shot(host.page, "rooms-01-play-public");
  await host.page.click("#start");
  await host.page.waitForSelector("#room-listed");
  assert.match(await host.page.locator("#invite-link").inputValue(), /#\/join\/[A-Za-z0-9]+$/);
  await shot(host.page, "rooms-02-public-room-waiting");
  // The host sees their own room listed, as theirs.
  const row = guest.page.locator("#open-rooms .open-room");
  await row.waitFor();
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator(".summary-title").textContent(), "Ana");
  assert.equal(await row.locator(".muted").textContent(), "Standard · 3+2");
  assert.equal(await guest.page.locator("#open-rooms h3").textContent(), "Quoridor");
  await shot(guest.page, "rooms-03-lobby-lists-room");
  await guest.page.click("#open-rooms .open-room button.join-room"); // the one click
  await guest.page.waitForURL(/#\/game\//);
  await host.page.waitForURL(/#\/game\//);
  assert.equal(new URL(guest.page.url()).hash, new URL(host.page.url()).hash, "the same game");
  await guest.page.waitForSelector(".board-box");
  await host.page.waitForSelector(".board-box");
  await shot(guest.page, "rooms-04-joined-game");
  // A started room leaves the list.
  const third = await newPlayer(browser, server.url);
  await signIn(third.page, "Caio");
  await third.page.waitForSelector("#open-rooms #rooms-none");
  await third.ctx.close();
  await guest.ctx.close();
  await host.ctx.close();
});

test("a private room takes the password its host chose, and is not listed; a password too short is refused beside its field", async () => {
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Dora");
  // Three letters: the lobby would refuse them; the page says why, under the field, and stays.
  await host.page.click(`label.game-card[data-game="Quoridor"]`);
  await host.page.click(`label.chip[data-choice="opp:friend"]`);
  await host.page.click(`label.chip[data-choice="room:private"]`);
  await host.page.fill("#room-password", "abc");
  await host.page.click("#start");
  await host.page.waitForSelector("#room-password-error");
  assert.match((await host.page.locator("#room-password-error").textContent()) ?? "", /4 to 64 characters/);
  assert.doesNotMatch(host.page.url(), /#\/room\//, "no room opened");
  await openRoom(host.page, "private", "figueira42");
  await host.page.waitForSelector("#invite-link");
  assert.match(await host.page.locator("#invite-link").inputValue(), /#\/join\/[A-Za-z0-9]+\?pw=figueira42$/);
  assert.equal(await host.page.locator("#room-pw").textContent(), "figueira42");
  await shot(host.page, "rooms-05-private-room-own-password");
  const other = await newPlayer(browser, server.url);
  await signIn(other.page, "Edu");
  await other.page.waitForSelector("#open-rooms #rooms-none");
  // By the code and the password typed in the lobby's Join box.
  const code = (await host.page.locator("#invite-code").textContent())!;
  await other.page.fill("#code", code);
  await other.page.fill("#code-pw", "figueira42");
  await other.page.click("form.stack button[type=submit]");
  await other.page.waitForURL(/#\/game\//);
  await host.page.waitForURL(/#\/game\//);
  await other.ctx.close();
  await host.ctx.close();
});

test("a player of a private game invites a spectator by link; the spectator signs in as a guest and watches; the players see who watches", async () => {
  const host = await newPlayer(browser, server.url);
  await signIn(host.page, "Gil");
  await openRoom(host.page, "private");
  const link = await host.page.locator("#invite-link").inputValue();
  const guest = await newPlayer(browser, link);
  await signIn(guest.page, "Hana", false);
  await host.page.waitForURL(/#\/game\//);
  await guest.page.waitForURL(/#\/game\//);
  const matchId = /#\/game\/([^/?]+)/.exec(host.page.url())![1];
  // Someone who is not invited cannot watch the private game.
  const outsider = await newPlayer(browser, server.url);
  await signIn(outsider.page, "Ivo");
  await outsider.page.goto(`${server.url}/#/watch/${matchId}`);
  await outsider.page.waitForSelector(".conn-banner:not(:empty)");
  assert.equal(await outsider.page.locator(".board-box svg").count(), 0, "no board for someone not invited");
  await outsider.ctx.close();
  // The host invites one by name, and gets a link for them.
  await host.page.waitForSelector("#spectators #spectator-form:not([hidden])");
  assert.equal(await host.page.locator("#watchers").textContent(), "Nobody watching");
  await host.page.fill("#spectator-name", "Júlia");
  await host.page.click("#invite-spectator");
  const watchLink = await host.page.locator("#spectator-link").inputValue();
  assert.match(watchLink, new RegExp(`#/spectate/${matchId}\\?p=.+&k=.+&n=J`));
  await shot(host.page, "rooms-06-spectator-invited");
  // The invited person opens the link in a browser of their own, signs in as a guest and watches.
  const spectator = await newPlayer(browser, watchLink);
  await spectator.page.waitForSelector("#spectate-title");
  assert.equal(await spectator.page.locator("#name").inputValue(), "Júlia");
  await shot(spectator.page, "rooms-07-spectate-sign-in");
  await spectator.page.click("#watch-invite");
  await spectator.page.waitForURL(new RegExp(`#/watch/${matchId}`));
  await spectator.page.waitForSelector(".board-box svg");
  assert.match((await spectator.page.locator(".game-info").textContent())!, /Spectating/i);
  assert.equal(await spectator.page.locator(".who-name").textContent(), "Júlia");
  await shot(spectator.page, "rooms-08-spectator-watches");
  // Both players see that one watches, and whom they invited.
  await host.page.waitForFunction(() => document.querySelector("#watchers")?.textContent === "1 watching · invited: Júlia");
  await guest.page.waitForFunction(() => /^1 watching/.test(document.querySelector("#watchers")?.textContent ?? ""));
  await shot(host.page, "rooms-09-host-sees-spectator");
  await spectator.ctx.close();
  await guest.ctx.close();
  await host.ctx.close();
});

test("reopening the site on one's turn shows the game waiting, with the time left, above the lobby", async () => {
  const p = await newPlayer(browser, server.url);
  await signIn(p.page, "Kai");
  const matchId = await startBot(p.page, "Quoridor", { seat: "White (first)", clock: "3+2" });
  await p.page.waitForSelector(".board-box svg");
  // The site closed and opened again: the lobby, with the banner at its top.
  await p.page.close();
  const page = await p.ctx.newPage();
  await page.goto(server.url);
  const banner = page.locator("#turn-banner");
  await banner.waitFor();
  assert.match((await banner.textContent())!, /^Your turn! Quoridor · Standard against Bot \(easy\) is waiting for your ply\./);
  assert.match((await page.locator("#turn-clock").textContent())!, /^[23]:\d\d left$/);
  const box = (await banner.boundingBox())!;
  assert.ok(box.y < 200, `the banner is at the top of the page (y ${box.y})`);
  await shot(page, "rooms-10-your-turn-banner");
  await page.click("#turn-back");
  await page.waitForURL(new RegExp(`#/game/${matchId}`));
  await p.ctx.close();
});

test("an invite to a Corners or Banqi room shows that game's board, not Quoridor's", async () => {
  for (const game of ["Corners", "Banqi"]) {
    const host = await newPlayer(browser, server.url);
    await signIn(host.page, "Lu");
    await openRoom(host.page, "private", "", game);
    const link = await host.page.locator("#invite-link").inputValue();
    const guest = await newPlayer(browser, link);
    await guest.page.waitForSelector("#invite-details:not([hidden])");
    await guest.page.waitForSelector(`.hero-art[data-game="${game}"] svg`);
    await shot(guest.page, `rooms-11-invite-${game.toLowerCase()}`);
    await guest.ctx.close();
    await host.ctx.close();
  }
});

test("on a phone the lobby's Play button is on the first screen", async () => {
  const p = await newPlayer(browser, server.url, { phone: true });
  await signIn(p.page, "Mia");
  const box = (await p.page.locator("#start").boundingBox())!;
  assert.ok(box.y >= 0 && box.y + box.height <= 844, `Play at ${box.y}–${box.y + box.height}, within the 844 px screen`);
  await shot(p.page, "rooms-12-phone-lobby-play");
  // Still there, and pressable, after choosing a room.
  await p.page.click(`label.chip[data-choice="opp:friend"]`);
  const again = (await p.page.locator("#start").boundingBox())!;
  assert.ok(again.y + again.height <= 844, `Play at ${again.y}–${again.y + again.height} after a choice`);
  await p.ctx.close();
});
