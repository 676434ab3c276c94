// Helpers of the browser tests: Debian's chromium driven by playwright-core
// (never a downloaded browser), a real `tabuleiro serve` on a free port
// with a temporary data directory, and screenshots saved as artefacts in
// web/artifacts/ (not committed). When a test fails, every page still open
// is saved as web/artifacts/failed-<test>-<n>.png and its address and last
// console errors are printed (for CI, where nobody watches the browser).
import { after, afterEach, before } from "node:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

// The tests run from web/ (npm run e2e, scripts/test.sh), wherever they were built.
export const webDir = process.cwd();
if (!existsSync(join(webDir, "build.mjs"))) throw new Error(`run the browser tests from web/ (cwd is ${webDir})`);
export const repoDir = join(webDir, "..");
export const artifacts = join(webDir, "artifacts");

const browsers = new Set<Browser>();
const consoleErrors = new WeakMap<Page, string[]>();
const reported = new WeakSet<Page>();

function keepError(page: Page | null, text: string): void {
  if (!page) return;
  const errs = consoleErrors.get(page) ?? [];
  errs.push(text);
  consoleErrors.set(page, errs.slice(-5));
}

// After a failed test (in every file that imports the harness): a
// screenshot of each page still open that no earlier failure reported, with
// its address and last console errors. TestContext.passed is in node 20's
// test runner (since 20.12) but not in @types/node 20.
afterEach(async (t) => {
  if ((t as { passed?: boolean }).passed !== false) return;
  const name = t.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60);
  mkdirSync(artifacts, { recursive: true });
  let n = 0;
  for (const browser of browsers) {
    for (const page of browser.contexts().flatMap((c) => c.pages())) {
      if (reported.has(page)) continue;
      reported.add(page);
      const path = join(artifacts, `failed-${name}-${++n}.png`);
      const saved = await page.screenshot({ path, timeout: 15_000 }).then(() => path, (e: Error) => `no screenshot (${e.message.split("\n")[0]})`);
      const errs = consoleErrors.get(page) ?? [];
      console.error(`failed "${t.name}": page ${n} at ${page.url()}: ${saved}` +
        (errs.length ? `\n  last console errors:\n${errs.map((e) => `    ${e}`).join("\n")}` : "\n  no console errors"));
    }
  }
  if (!n) console.error(`failed "${t.name}": no page open`);
});

/**
 * launch starts Debian's chromium; opts.env is added to its environment
 * (FONTCONFIG_FILE: a machine with other fonts) and opts.args to its flags
 * (--lang=pt-BR).
 */
export async function launch(opts: { env?: Record<string, string>; args?: string[] } = {}): Promise<{ browser: Browser; cleanup: () => Promise<void> }> {
  const exe = process.env.TABULEIRO_CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(exe)) throw new Error(`${exe} is missing: apt-get install chromium (scripts/test.sh does)`);
  // playwright-core gives every launch a fresh temporary profile
  // (--user-data-dir of its own); it refuses one passed in args.
  const browser = await chromium.launch({
    executablePath: exe,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run", "--disable-dev-shm-usage", ...(opts.args ?? []),
    ],
    env: opts.env ? { ...process.env, ...opts.env } as Record<string, string> : undefined,
  });
  browsers.add(browser);
  browser.on("disconnected", () => browsers.delete(browser));
  // Every page's console errors and uncaught exceptions, the last few kept
  // for the report of a failed test.
  browser.on("context", (ctx) => {
    ctx.on("console", (m) => {
      if (m.type() === "error") keepError(m.page(), m.text());
    });
    ctx.on("weberror", (e) => keepError(e.page(), `uncaught: ${e.error().message}`));
  });
  return {
    browser,
    cleanup: async () => {
      await browser.close().catch(() => {});
    },
  };
}

// docShots are the shots that README.md and docs/ show: with
// TABULEIRO_DOC_SCREENSHOTS=1 (scripts/screenshots.sh) each is also
// written to docs/screenshots/ under its name here.
const docShots: Record<string, string> = { "06-quoridor-midgame": "web.png" };

export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(artifacts, { recursive: true });
  const path = join(artifacts, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  if (process.env.TABULEIRO_DOC_SCREENSHOTS === "1" && docShots[name]) {
    await page.screenshot({ path: join(repoDir, "docs", "screenshots", docShots[name]), fullPage: false });
  }
  return path;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a ? resolve(a.port) : reject(new Error("no port"))));
    });
  });
}

export interface Server {
  url: string;
  stop: () => Promise<void>;
}

/**
 * serve starts `tabuleiro serve` (the binary in TABULEIRO_BIN, built by
 * scripts/test.sh, or `go run`) on a free loopback port with a fresh data
 * directory, and waits until it answers with the web client.
 */
export async function serve(): Promise<Server> {
  // TABULEIRO_E2E_URL: a server already running (for working on the tests).
  const given = process.env.TABULEIRO_E2E_URL;
  if (given) return { url: given, stop: async () => {} };
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), "tabuleiro-e2e-"));
  const addr = `127.0.0.1:${port}`;
  const bin = process.env.TABULEIRO_BIN;
  const args = ["serve", "--addr", addr, "--data-dir", data];
  const child: ChildProcess = bin
    ? spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] })
    : spawn("go", ["run", "./cmd/tabuleiro", ...args], { cwd: repoDir, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const url = `http://${addr}`;
  const deadline = Date.now() + (bin ? 120_000 : 600_000); // `go run` compiles first
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tabuleiro serve exited ${child.exitCode}:\n${log}`);
    try {
      const r = await fetch(`${url}/`);
      if (r.ok && (await r.text()).includes("app.js")) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`tabuleiro serve did not answer on ${url}:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    stop: async () => {
      child.kill("SIGINT");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** newPlayer opens a fresh browser context (its own storage: another person) at the server. */
export async function newPlayer(browser: Browser, url: string, opts: { phone?: boolean; locale?: string } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
  // The browser's language: English unless a test asks for another (navigator.languages, Accept-Language).
  const locale = opts.locale ?? "en-US";
  const ctx = await browser.newContext(opts.phone
    ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale }
    : { viewport: { width: 1280, height: 860 }, locale });
  // A loaded machine is slow, not wrong: waits are long (none decides a pass by speed).
  ctx.setDefaultTimeout(120_000);
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(url);
  return { ctx, page };
}

export async function signIn(page: Page, name: string, toLobby = true): Promise<void> {
  await page.fill("#name", name);
  await page.click("form.signin button[type=submit]");
  if (toLobby) await page.waitForSelector("#start");
}

/** The file's server and browser, set by serveAndLaunch's `before`. */
export let server: Server;
export let browser: Browser;

/**
 * serveAndLaunch has the calling test file start one `tabuleiro serve`
 * and one browser (launched with opts) before its tests, and stop both
 * after them: they are `server` and `browser` above.
 */
export function serveAndLaunch(opts: Parameters<typeof launch>[0] = {}): void {
  let closeBrowser: (() => Promise<void>) | undefined;
  before(async () => {
    server = await serve();
    ({ browser, cleanup: closeBrowser } = await launch(opts));
  });
  after(async () => {
    await closeBrowser?.();
    await server?.stop();
  });
}
