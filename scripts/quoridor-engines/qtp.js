// qtp.js: an outside Quoridor engine that speaks QTP (playmove, playwall,
// genmove) as the lab's opponent (TABULEIRO_QUORIDOR_LAB_ENGINE, docs/bots.md,
// "Against outside engines").
//
//   TABULEIRO_QUORIDOR_LAB_ENGINE="node scripts/quoridor-engines/qtp.js /path/to/engine"
//
// Each line the lab writes is a game's number and its plies so far in
// RULES.md notation; the answer is the engine's ply. A fresh engine answers
// each line: the plies are replayed, then genmove. QTP numbers a wall by the
// square above the groove (its e3h lies between ranks 2 and 3: RULES.md's
// e2h); pawn moves read the same.
"use strict";
const { spawn } = require("child_process");
const readline = require("readline");

const engine = process.argv[2];
if (!engine) {
  console.error("usage: node qtp.js ENGINE [ARG...]");
  process.exit(2);
}
const engineArgs = process.argv.slice(3);

// ask sends cmds to a fresh engine and resolves with its answers, one a
// command (QTP ends each answer with an empty line).
function ask(cmds) {
  return new Promise((resolve, reject) => {
    const eng = spawn(engine, engineArgs, { stdio: ["pipe", "pipe", "ignore"] });
    let buf = "";
    const answers = [];
    const timer = setTimeout(() => {
      eng.kill("SIGKILL");
      reject(new Error("the engine did not answer within 60 s"));
    }, 60000);
    eng.on("error", reject);
    eng.stdout.on("data", (d) => {
      buf += d.toString();
      for (let i; (i = buf.indexOf("\n\n")) >= 0; ) {
        answers.push(buf.slice(0, i).trim());
        buf = buf.slice(i + 2);
        if (answers.length === cmds.length) {
          clearTimeout(timer);
          eng.kill("SIGKILL");
          resolve(answers);
        }
      }
    });
    eng.stdin.write(cmds.join("\n") + "\n");
  });
}

const color = (n) => (n % 2 === 0 ? "white" : "black");

function toQTP(ply, n) {
  if (ply.length === 3) return `playwall ${color(n)} ${ply[0]}${Number(ply[1]) + 1} ${ply[2]}`;
  return `playmove ${color(n)} ${ply}`;
}

function fromQTP(answer) {
  const t = answer.replace(/^=\s*/, "").toLowerCase().split(/\s+/);
  if (t.length === 1) return t[0];
  return t[0][0] + String(Number(t[0].slice(1)) - 1) + t[1][0];
}

process.on("unhandledRejection", (e) => {
  console.error(String(e));
  process.exit(1);
});
let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  queue = queue.then(async () => {
    const plies = line.trim().split(/\s+/).slice(1);
    const cmds = plies.map(toQTP);
    cmds.push(`genmove ${color(plies.length)}`);
    const answers = await ask(cmds);
    answers.slice(0, -1).forEach((a, n) => {
      if (!a.startsWith("=")) throw new Error(`the engine refused ${plies[n]}: ${a}`);
    });
    process.stdout.write(fromQTP(answers[answers.length - 1]) + "\n");
  });
});
