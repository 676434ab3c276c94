// `tabuleiro login` approved from a browser, against a real `tabuleiro
// serve`: the terminal (the tabuleiro binary, as a person runs it) shows
// a code and a link; a guest opening the link is told only an account can
// approve; the account's browser opens it, the code already filled in,
// and approves; the terminal then signs in as the account and keeps it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browser, newPlayer, repoDir, serveAndLaunch, server, shot, signIn } from "./harness";

serveAndLaunch();

test("tabuleiro login is approved in the account's browser and the terminal signs in as the account", async () => {
  // The terminal names a loopback server by localhost (as serve's banner
  // does): the account's browser is signed in there.
  const url = server.url.replace("127.0.0.1", "localhost");
  const a = await newPlayer(browser, url);
  await signIn(a.page, "Ana Terminal");
  await a.page.click("#who-account");
  await a.page.fill("#claim-username", "ana_terminal");
  await a.page.fill("#claim-password", "uma senha longa");
  await a.page.click("#claim-submit");
  await a.page.waitForSelector("#account-username:has-text('@ana_terminal')");

  // The terminal.
  const data = mkdtempSync(join(tmpdir(), "tabuleiro-login-"));
  const addr = server.url.replace(/^https?:\/\//, "");
  const args = ["login", "--server", addr, "--data-dir", data];
  const bin = process.env.TABULEIRO_BIN;
  const child = bin
    ? spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LANG: "C" } })
    : spawn("go", ["run", "./cmd/tabuleiro", ...args], { cwd: repoDir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LANG: "C" } });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once("exit", r));
  try {
    let link = "";
    let code = "";
    for (const deadline = Date.now() + 600_000; !link; ) {
      const m = out.match(/code ([B-Z]{4}-[B-Z]{4})[\s\S]*\(or open (\S+)\)/);
      if (m) [code, link] = [m[1], m[2]];
      else if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tabuleiro login showed no code:\n${out}`);
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(link, `${url}/#/device?code=${code}`);

    // A guest is told to sign in to an account first.
    const g = await newPlayer(browser, url);
    await signIn(g.page, "Convidado");
    await g.page.goto(link);
    await g.page.waitForSelector("#device-need-account");

    // The account approves, the code filled in from the link.
    await a.page.goto(link);
    await a.page.waitForSelector("#device-code");
    assert.equal(await a.page.inputValue("#device-code"), code);
    await shot(a.page, "45-device-approve");
    await a.page.click("#device-approve");
    await a.page.waitForSelector("#device-result:has-text('Approved')");
    assert.match(await a.page.locator("#device-result").innerText(), /@ana_terminal/);

    assert.equal(await exited, 0, out);
    assert.match(out, /Signed in as ana_terminal \(Ana Terminal\)/);
    const ids = JSON.parse(readFileSync(join(data, "identities.json"), "utf8"));
    assert.equal(ids[addr].username, "ana_terminal");

    // The account's sign-ins list the terminal.
    await a.page.goto(`${url}/#/account`);
    await a.page.waitForSelector("#sessions li.session:has-text('tabuleiro')");
  } finally {
    child.kill();
    rmSync(data, { recursive: true, force: true });
  }
});
