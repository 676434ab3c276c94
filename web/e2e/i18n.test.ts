// The client in the players' languages, in Debian's chromium against a
// real `tabuleiro serve`: a whole Quoridor game against the bot, a refused
// wall with its rule number, the result, a Banqi game, the history and
// stats in Brazilian Portuguese (the browser's language), checked for
// English left on screen; the language menu switching (in a game, which
// stays) and remembered; the rules page in each language; phone width.
// Then Banqi's pieces in a chromium that has no CJK font at all (a
// fontconfig listing DejaVu only): every piece face is drawn, none as an
// empty box, and no piece is CJK text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import webCatalogs from "catalogs:web";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { render, type Params } from "../src/i18n";
import { browser, launch, newPlayer, serveAndLaunch, server, shot, signIn } from "./harness";
import { boardInfo, boxOf, clickHere, clickSquare, destinations, distance, pawns, pointWall, waitTurn, walls } from "./play";

type Catalog = Record<string, string | Record<string, string>>;
const catalogs = webCatalogs as Record<string, Catalog>;

/**
 * tr is a key's message in a language as the client renders it: the
 * tests assert the catalogs' words, never a copy of them, so rewording a
 * message does not break them.
 */
const tr = (tag: string, key: string, params?: Params) => render(catalogs as Parameters<typeof render>[0], tag, key, params);
const pt = (key: string, params?: Params) => tr("pt-BR", key, params);

serveAndLaunch({ args: ["--lang=pt-BR"] });

/** ENGLISH are words of the English screens that no Portuguese screen has. */
const ENGLISH = /\b(Play|Watch|History|Stats|Rules|Sign out|New game|Opponent|Variant|Clock|Resign|Offer draw|Your turn|to move|walls? left|plies|ply|rated|casual|Loading|Waiting|You (won|lost)|Replay|Bot level|Easy|Cancel|Close|Rematch|standard|captured|face down)\b/;

/**
 * englishLeft lists what of the English catalog is on the page in a
 * Portuguese screen: every stretch of an English message (between its
 * placeholders) of 12 characters or more that the Portuguese catalog
 * does not say the same way, and the English words above.
 */
async function englishLeft(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText);
  const pt = JSON.stringify(catalogs["pt-BR"]);
  const found = new Set<string>();
  for (const m of Object.values(catalogs.en)) {
    for (const s of typeof m === "string" ? [m] : Object.values(m)) {
      for (const part of s.split(/\{[^}]+\}/)) {
        const p = part.trim();
        if (p.length >= 12 && /\s/.test(p) && !pt.includes(p) && text.includes(p)) found.add(p);
      }
    }
  }
  const w = ENGLISH.exec(text);
  if (w) found.add(`word "${w[0]}" in …${text.slice(Math.max(0, w.index - 40), w.index + 40)}…`);
  return [...found];
}

async function noEnglish(page: Page, where: string): Promise<void> {
  assert.deepEqual(await englishLeft(page), [], `English on the Portuguese ${where}`);
  assert.equal(await page.evaluate(() => document.documentElement.lang), "pt-BR", `<html lang> of the ${where}`);
}

/** noOverflow checks that nothing sticks out sideways (longer strings must wrap, not break the layout). */
async function noOverflow(page: Page, where: string): Promise<void> {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 1, `the ${where} is ${over}px wider than the screen`);
}

async function waitPly(page: Page, after: number): Promise<void> {
  await page.waitForFunction((n) => {
    const b = document.querySelector<HTMLElement>(".board-box");
    return !!b && (Number(b.dataset.plyCount) > n || b.dataset.status === "FINISHED");
  }, after, { timeout: 120_000 });
}

async function botGame(page: Page, game: string, seat = "seat:1"): Promise<void> {
  await page.click(`label.game-card[data-game="${game}"]`);
  await page.click(`label.chip[data-choice="opp:bot"]`);
  await page.click(`label.chip[data-level="Easy"]`);
  await page.click(`label.chip[data-choice="${seat}"]`);
  await page.click(`label.chip[data-choice="clock:0"]`);
  await page.click("#start");
  await page.waitForURL(/#\/game\//);
}

test("in Portuguese: lobby, a whole Quoridor game against the bot with a refused wall and its rule, the result, replay, history and stats", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await page.waitForSelector("#name");
  await noEnglish(page, "sign-in page");
  await shot(page, "i18n-01-pt-sign-in");
  await signIn(page, "Joaquim");
  await noEnglish(page, "lobby");
  await shot(page, "i18n-02-pt-lobby");
  await botGame(page, "Quoridor");
  let placed = "";
  let refused = false;
  let turns = 0;
  for (;;) {
    const info = await waitTurn(page);
    if (info.finished) break;
    turns++;
    assert.ok(turns < 150, "the game ends");
    if (turns === 1) {
      await page.waitForSelector(".board-box circle.dest");
      await noEnglish(page, "game screen");
      await shot(page, "i18n-03-pt-quoridor");
    }
    if (turns === 2 && !placed) {
      // A wall in front of the bot's pawn, by the mouse.
      const p = await pawns(page);
      const f = p.black.charCodeAt(0) - 97;
      const rank = Number(p.black.slice(1)) - 2;
      for (const df of [0, -1, 1]) {
        const w = `${String.fromCharCode(97 + Math.max(0, Math.min(7, f + df)))}${rank}h`;
        await pointWall(page, w, info.flipped);
        const preview = page.locator(".board-box .wall-preview:not(.checking)");
        await preview.waitFor();
        if (((await preview.getAttribute("class")) ?? "").includes("invalid")) continue;
        await clickHere(page);
        await waitPly(page, info.plyCount);
        placed = w;
        break;
      }
      if (placed) continue;
    }
    if (placed && !refused) {
      // The same wall again: refused before it is sent, with its rule, in Portuguese.
      await pointWall(page, placed, info.flipped);
      const hint = page.locator(".hint.refused");
      await hint.waitFor();
      // A refusal is said as a sentence: the rule's reference, then a full stop.
      const refusal = `${pt("refusal", { what: pt("wall.named", { wall: placed }), reason: pt("wall.rule.same") })}.`;
      assert.equal((await hint.textContent()) ?? "", refusal);
      await clickHere(page);
      const toast = page.locator("#toast.show.error");
      await toast.waitFor();
      assert.ok(((await toast.textContent()) ?? "").includes(refusal), "the toast says the refusal");
      assert.equal(await toast.locator("a.rule-ref").getAttribute("href"), "#/rules/quoridor/Q3.2");
      assert.equal(await toast.locator("a.rule-ref").getAttribute("title"), pt("rule.link", { id: "Q3.2" }));
      await noEnglish(page, "refused wall");
      await shot(page, "i18n-04-pt-refused-wall");
      refused = true;
      await page.mouse.move(1, 1);
    }
    await page.waitForSelector(".board-box circle.dest");
    const ds = await destinations(page);
    const ws = await walls(page);
    ds.sort((a, b) => distance(a, 9, ws) - distance(b, 9, ws));
    await clickSquare(page, Game.QUORIDOR, ds[0], info.flipped);
    await waitPly(page, info.plyCount);
  }
  assert.ok(placed && refused, "a wall placed and the same wall refused");
  await page.waitForSelector(".result-card");
  assert.ok([pt("title.won"), pt("title.lost")].includes((await page.locator("#result-title").textContent()) ?? ""), "won or lost, in Portuguese");
  assert.ok([pt("outcome.goal.you"), pt("outcome.goal.opp")].includes((await page.locator("#result-line").textContent()) ?? ""), "a pawn reached its goal rank, in Portuguese");
  await noEnglish(page, "result");
  await shot(page, "i18n-05-pt-result");
  await page.click(".result-card a[href^='#/replay/']");
  await page.waitForSelector(".replay-nav");
  await page.keyboard.press("Home");
  const total = Number(await page.locator(".moves button.ply").count());
  await page.waitForSelector(`.counter:text-is("${pt("replay.counter", { at: 0, count: total })}")`);
  await noEnglish(page, "replay");
  await shot(page, "i18n-06-pt-replay");
  await page.click("nav a[href='#/history']");
  await page.waitForSelector(".summary");
  await noEnglish(page, "history");
  await shot(page, "i18n-07-pt-history");
  await page.click("nav a[href='#/stats']");
  await page.waitForSelector(".bot-tables");
  await noEnglish(page, "stats");
  await shot(page, "i18n-08-pt-stats");
  await ctx.close();
});

test("in Portuguese: a Banqi game against the bot, reveals, counts and a resignation", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await signIn(page, "Beatriz");
  await botGame(page, "Banqi");
  let info = await waitTurn(page);
  for (let i = 0; i < 3 && !info.finished; i++) {
    const down = await page.locator(".board-box g.face-down").evaluateAll((els) => els.map((e) => e.getAttribute("data-sq-piece")!));
    await clickSquare(page, Game.BANQI, down[0], false);
    await waitPly(page, info.plyCount);
    info = await waitTurn(page);
  }
  await page.waitForSelector(".hidden-counts .hc");
  const downNow = await page.locator(".board-box g.face-down").count();
  assert.equal(await page.locator(".hidden-box summary").textContent(), pt("faceDown", { count: downNow }));
  await noEnglish(page, "Banqi game");
  await shot(page, "i18n-09-pt-banqi");
  await page.click("#resign");
  await page.click("#resign-confirm");
  await page.waitForSelector(".result-card");
  assert.equal(await page.locator("#result-title").textContent(), pt("title.lost"));
  assert.equal(await page.locator("#result-line").textContent(), pt("outcome.resignation.you"));
  await noEnglish(page, "Banqi result");
  await shot(page, "i18n-10-pt-banqi-result");
  await ctx.close();
});

test("the language menu switches the page in place, in a game too, and is remembered", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await signIn(page, "Carla");
  assert.equal(await page.locator("nav a[href='#/play']").textContent(), pt("nav.play"));
  const names = await page.locator("#lang option").allTextContents();
  assert.deepEqual(names, ["en", "es", "pt-BR"].map((tag) => tr(tag, "language.name")), "each language by its own name");
  await botGame(page, "Quoridor");
  await waitTurn(page);
  const url = page.url();
  const plies = (await boardInfo(page)).plyCount;
  await page.selectOption("#lang", "en");
  await page.waitForSelector(`nav a[href='#/play']:text-is("${tr("en", "nav.play")}")`);
  assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
  assert.equal(page.url(), url, "the same game");
  assert.equal((await boardInfo(page)).plyCount, plies, "the same position");
  assert.equal(await page.locator("#status-line").textContent(), tr("en", "status.yourTurn"));
  await shot(page, "i18n-11-switched-to-en");
  await page.selectOption("#lang", "es");
  await page.waitForSelector(`nav a[href='#/play']:text-is("${tr("es", "nav.play")}")`);
  assert.equal(await page.locator("#status-line").textContent(), tr("es", "status.yourTurn"));
  // The spectators' panel too (its public-game link text stayed Portuguese).
  assert.equal(await page.locator("#spectators p.muted").first().textContent(), tr("es", "spectate.public"));
  await shot(page, "i18n-12-switched-to-es");
  await page.reload();
  await page.waitForSelector(`nav a[href='#/play']:text-is("${tr("es", "nav.play")}")`);
  assert.equal(await page.evaluate(() => document.documentElement.lang), "es", "remembered over a reload");
  await ctx.close();
});

test("the rules page in each language, English where a language has no page yet", async () => {
  for (const [locale, tag] of [["en-US", "en"], ["pt-BR", "pt-BR"], ["es-MX", "es"]] as const) {
    const title = tr(tag, "rules.title", { game: "Quoridor" });
    const { ctx, page } = await newPlayer(browser, `${server.url}/#/rules/quoridor/Q3.2`, { locale });
    await page.waitForSelector(".rules-doc [data-rule='Q3.2'].target");
    assert.equal(await page.locator("main h1").textContent(), title);
    const docLang = await page.locator(".rules-doc").getAttribute("lang");
    const fallback = await page.locator("#rules-fallback").count();
    assert.equal(fallback > 0, docLang !== tag, "the fallback is said exactly when the page is English's");
    assert.equal(await page.title(), tr(tag, "title.rules", { game: "Quoridor" }));
    await shot(page, `i18n-13-rules-${locale}`);
    await ctx.close();
  }
});

test("in Portuguese on a phone: the lobby and a game fit the screen", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR", phone: true });
  await signIn(page, "Severino Quaresma");
  await noOverflow(page, "phone lobby");
  await shot(page, "i18n-14-pt-phone-lobby");
  await botGame(page, "Banqi");
  await waitTurn(page);
  await noOverflow(page, "phone game");
  await noEnglish(page, "phone game");
  await shot(page, "i18n-15-pt-phone-banqi");
  await ctx.close();
});

test("in Portuguese at 1280x800: a refused ply's message is in view as wide as the board, the board and the panel sit together, and a language switch rewords the message", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, "Bia Teste");
  await botGame(page, "Quoridor");
  const info = await waitTurn(page);
  await page.waitForSelector(".conn-banner:empty", { state: "attached" });
  const board = await boxOf(page.locator(".board-box svg"), "the board");
  const col = await boxOf(page.locator(".board-col"), "the board's column");
  const side = await boxOf(page.locator(".side-col"), "the panel");
  const gap = side.x - (col.x + col.width);
  assert.ok(gap >= 0 && gap <= 40, `the panel starts ${gap} px after the board's column, no empty band between them`);
  assert.ok(Math.abs(col.width - board.width) <= 2, `the board's column (${col.width} px) is the board's width (${board.width} px)`);
  await clickSquare(page, Game.QUORIDOR, "e5", info.flipped);
  const toast = page.locator("#toast.show.error");
  await toast.waitFor();
  const box = await boxOf(toast, "the refusal");
  assert.ok(box.y + box.height <= 800, `the refusal ends at ${box.y + box.height}, within 800: no scrolling to read it`);
  assert.ok(Math.abs(box.width - board.width) <= 2, `the refusal is ${box.width} px wide, the board's ${board.width}`);
  for (const sel of ["#wall-mode", "#rotate"]) {
    const b = await boxOf(page.locator(sel), sel);
    assert.ok(b.y + b.height <= 800, `${sel} ends at ${b.y + b.height}, within 800`);
  }
  const said = (await toast.textContent()) ?? "";
  assert.match(said, /\be5\b/);
  await shot(page, "i18n-pt-desk-refusal-in-view");
  // The message is reworded in the language chosen, not left in Portuguese.
  await page.selectOption("#lang", "en");
  await page.waitForSelector(`nav a[href='#/play']:text-is("${tr("en", "nav.play")}")`);
  const now = (await page.locator("#toast.show.error").textContent()) ?? "";
  assert.match(now, /\be5\b/, `the refusal still names the square: ${JSON.stringify(now)}`);
  assert.notEqual(now, said, "the refusal is reworded");
  assert.doesNotMatch(now, /Lance|peão|Escolha/, `no Portuguese left: ${JSON.stringify(now)}`);
  await shot(page, "i18n-desk-refusal-switched-to-en");
  await page.selectOption("#lang", "pt-BR");
  await ctx.close();
});

test("a Corners piece that cannot move: its message follows a language switch", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await signIn(page, "Caio");
  await botGame(page, "Corners");
  const info = await waitTurn(page);
  await clickSquare(page, Game.CORNERS, info.flipped ? "h8" : "a1", info.flipped);
  const toast = page.locator("#toast.show.error");
  await toast.waitFor();
  assert.equal(await toast.textContent(), pt("piece.cannotMove"));
  await page.selectOption("#lang", "en");
  await page.waitForSelector(`nav a[href='#/play']:text-is("${tr("en", "nav.play")}")`);
  assert.equal(await page.locator("#toast.show.error").textContent(), tr("en", "piece.cannotMove"));
  await page.selectOption("#lang", "es");
  await page.waitForSelector(`nav a[href='#/play']:text-is("${tr("es", "nav.play")}")`);
  assert.equal(await page.locator("#toast.show.error").textContent(), tr("es", "piece.cannotMove"));
  await page.selectOption("#lang", "pt-BR");
  await ctx.close();
});

test("in Portuguese on a phone the Quoridor hint names no keys, even after a tap that came as a click", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR", phone: true });
  await signIn(page, "Fernanda");
  await botGame(page, "Quoridor");
  const info = await waitTurn(page);
  const hint = page.locator(".board-tools .hint");
  await page.waitForFunction((t) => document.querySelector(".board-tools .hint")?.textContent === t, pt("hint.pawn.touch"));
  // A click (as some phones' browsers and tools send a tap): mouse words, still no keys.
  await clickSquare(page, Game.QUORIDOR, info.flipped ? "e9" : "e1", info.flipped);
  await page.waitForFunction((t) => document.querySelector(".board-tools .hint")?.textContent === t, pt("hint.pawn.mouse"));
  assert.doesNotMatch((await hint.textContent()) ?? "", /setas|Enter|\bW\b/);
  await page.click("#wall-mode");
  await page.waitForSelector("#wall-mode.on");
  assert.doesNotMatch((await hint.textContent()) ?? "", /setas|Enter|\bR\b/);
  await shot(page, "i18n-pt-phone-hint-without-keys");
  await ctx.close();
});

// ---- pieces without a CJK font ----

/** OLD_PIECE is a piece as the client drew it before: its character as text (kept to show the check fails on it). */
const OLD_PIECE = (ch: string, red: boolean) => `<svg class="old" width="40" height="40" viewBox="0 0 40 40"><circle cx="20" cy="20" r="18" fill="#f1e2c2"/><text x="20" y="26.5" font-size="18" text-anchor="middle" fill="${red ? "#b3261e" : "#1f1a17"}" font-family="'Noto Serif CJK SC','Songti SC','SimSun','WenQuanYi Micro Hei',serif" font-weight="700">${ch}</text></svg>`;

/**
 * faceShots are screenshots of each element found by selector, each
 * piece's Latin corner letter hidden, on a plain white ground: the page's
 * own background (a gradient) would make two empty boxes differ.
 */
async function faceShots(page: Page, selector: string): Promise<Buffer[]> {
  await page.addStyleTag({ content: `.disc text { visibility: hidden } ${selector} { background: #fff }` });
  const els = await page.locator(selector).all();
  const out: Buffer[] = [];
  for (const el of els) out.push(await el.screenshot());
  return out;
}

function sameFaces(shots: Buffer[]): number {
  let same = 0;
  for (let i = 0; i < shots.length; i++) for (let j = i + 1; j < shots.length; j++) if (shots[i].equals(shots[j])) same++;
  return same;
}

test("without any CJK font, every Banqi piece face is drawn (no empty boxes), and no piece is CJK text", async () => {
  // A fontconfig with DejaVu only: no CJK font exists for this chromium.
  const dir = mkdtempSync(join(tmpdir(), "tabuleiro-fonts-"));
  const conf = join(dir, "fonts.conf");
  writeFileSync(conf, `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${dir}/cache</cachedir></fontconfig>\n`);
  const cjk = execFileSync("fc-list", [":lang=zh", "family"], { env: { ...process.env, FONTCONFIG_FILE: conf } }).toString().trim();
  assert.equal(cjk, "", "the fontconfig hides every CJK font");
  assert.notEqual(execFileSync("fc-list", [], { env: { ...process.env, FONTCONFIG_FILE: conf } }).toString().trim(), "", "DejaVu is there");
  const plain = await launch({ env: { FONTCONFIG_FILE: conf } });
  try {
    const { ctx, page } = await newPlayer(plain.browser, server.url, { locale: "pt-BR" });
    await signIn(page, "Wei");
    // The lobby card's piece.
    assert.equal(await page.locator(".game-card[data-game='Banqi'] path.piece-glyph").count(), 1, "the lobby card draws its piece as a path");
    await botGame(page, "Banqi");
    const info = await waitTurn(page);
    const down = await page.locator(".board-box g.face-down").evaluateAll((els) => els.map((e) => e.getAttribute("data-sq-piece")!));
    await clickSquare(page, Game.BANQI, down[0], false);
    await waitPly(page, info.plyCount);
    await page.waitForSelector(".hidden-counts .hc svg");
    await shot(page, "i18n-16-banqi-no-cjk-font");
    // The page's text is drawn in a sans-serif (DejaVu Sans here), not in
    // the serif an unaliased fontconfig gives system-ui and sans-serif.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("DOM.enable");
    await cdp.send("CSS.enable");
    const { root } = await cdp.send("DOM.getDocument");
    for (const sel of ["#status-line", "header.top nav a"]) {
      const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector: sel });
      const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
      const families = fonts.map((f: { familyName: string }) => f.familyName);
      assert.ok(families.length && families.every((f: string) => /sans/i.test(f) && !/serif/i.test(f)), `${sel} is drawn in ${families.join(", ")}`);
    }
    // The watch link's Copy button fits its card.
    const copy = await boxOf(page.locator("#watch-link").locator("xpath=..").locator("button"), "the Copy button");
    const card = await boxOf(page.locator(".game-panel"), "the game's card");
    assert.ok(copy.x + copy.width <= card.x + card.width, `the Copy button ends at ${copy.x + copy.width}, past its card's ${card.x + card.width}`);
    // Pieces drawn as characters need no legend of the letters.
    assert.equal(await page.locator("#letter-legend").count(), 0, "no letter legend beside characters");
    // No piece anywhere is CJK text: the characters are outlines.
    const cjkText = await page.evaluate(() => [...document.querySelectorAll(".disc text, .disc tspan, .hc, .captured")]
      .map((e) => e.textContent ?? "").filter((s) => /[\u3400-\u9fff]/.test(s)));
    assert.deepEqual(cjkText, [], "no piece is drawn as CJK text");
    // The face-down counts show every kind still face down: 13 or 14 faces, each its own.
    const kinds = await page.locator(".hidden-counts .hc").count();
    assert.ok(kinds >= 13, `the counts show ${kinds} kinds`);
    const faces = await faceShots(page, ".hidden-counts .hc svg");
    assert.equal(sameFaces(faces), 0, "every piece face differs from every other (an empty box would repeat)");
    // The same check on the pieces as text (the client's old drawing) finds the empty boxes.
    await page.evaluate((html) => {
      const box = document.createElement("div");
      box.id = "old-pieces";
      box.innerHTML = html;
      document.body.prepend(box);
    }, [..."帥仕相俥傌炮兵"].map((c) => OLD_PIECE(c, true)).join("") + [..."將士象車馬包卒"].map((c) => OLD_PIECE(c, false)).join(""));
    const old = await faceShots(page, "#old-pieces svg.old");
    assert.ok(sameFaces(old) > 0, "text pieces without a CJK font are identical empty boxes");
    await shot(page, "i18n-17-old-text-pieces-are-boxes");
    await ctx.close();
  } finally {
    await plain.cleanup();
  }
});

test("the letters option draws every piece as its Latin letter, remembered", async () => {
  const { ctx, page } = await newPlayer(browser, server.url, { locale: "pt-BR" });
  await signIn(page, "Letícia");
  await page.selectOption("#piece-style", "letters");
  await page.waitForSelector(".game-card[data-game='Banqi'] text.piece-letter");
  await botGame(page, "Banqi");
  const info = await waitTurn(page);
  const down = await page.locator(".board-box g.face-down").evaluateAll((els) => els.map((e) => e.getAttribute("data-sq-piece")!));
  await clickSquare(page, Game.BANQI, down[0], false);
  await waitPly(page, info.plyCount);
  await page.waitForSelector(".hidden-counts .hc svg");
  const letters = await page.locator(".hidden-counts text.piece-letter").allTextContents();
  assert.ok(letters.length >= 13 && letters.every((l) => /^[KABRNCP]$/.test(l)), `letters: ${letters}`);
  assert.equal(await page.locator(".disc path.piece-glyph").count(), 0, "no character outlines");
  // A legend says what each letter stands for, in the player's language (C is a cannon, not a "cavalo").
  const legend = (await page.locator("#letter-legend").textContent()) ?? "";
  for (const [letter, kind] of [["K", "general"], ["A", "advisor"], ["B", "elephant"], ["R", "chariot"], ["N", "horse"], ["C", "cannon"], ["P", "soldier"]]) {
    assert.ok(legend.includes(`${letter} ${pt(`piece.kind.${kind}`)}`), `the legend "${legend}" has ${letter} ${pt(`piece.kind.${kind}`)}`);
  }
  await shot(page, "i18n-18-banqi-letters");
  assert.ok(await page.locator("#piece-style").isVisible(), "the piece style in a Banqi game");
  await page.reload();
  await page.waitForSelector(".board-box svg");
  assert.equal(await page.locator("#piece-style").inputValue(), "letters", "remembered");
  await ctx.close();
});
