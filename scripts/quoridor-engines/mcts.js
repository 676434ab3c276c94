// mcts.js: the browser MCTS Quoridor AI whose game.js and ai.js define Game
// and AI (new AI(simulations, uct).chooseNextMove(game)) as the lab's
// opponent (TABULEIRO_QUORIDOR_LAB_ENGINE, docs/bots.md, "Against outside
// engines"). Its files are loaded unchanged from DIR:
//
//   TABULEIRO_QUORIDOR_LAB_ENGINE="node scripts/quoridor-engines/mcts.js DIR 60000 0.2"
//
// Each line the lab writes is a game's number and its plies so far in
// RULES.md notation; the answer is the AI's ply. Math.random is seeded from
// the game's number and ply count, so a game replays. The AI's board has
// row 0 at the top: rank r is row 9-r, and a wall anchored on rank r lies
// on row 8-r.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const readline = require("readline");

const [dir, sims = "60000", uct = "0.2"] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node mcts.js DIR [SIMULATIONS] [UCT]");
  process.exit(2);
}
console.log = (...a) => process.stderr.write(a.join(" ") + "\n"); // the AI logs: keep stdout for plies

let seed = 1;
Math.random = () => { // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const src = ["game.js", "ai.js"].map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("\n");
vm.runInThisContext(src + "\nglobalThis.Game = Game; globalThis.AI = AI;");

const files = "abcdefghi";
function play(game, ply) {
  const f = files.indexOf(ply[0]);
  const r = Number(ply[1]);
  let ok;
  if (ply.length === 3) ok = ply[2] === "h" ? game.placeHorizontalWall(8 - r, f, true) : game.placeVerticalWall(8 - r, f, true);
  else ok = game.movePawn(9 - r, f, true);
  if (!ok) throw new Error(`the AI's board refuses ${ply}`);
}
function notation(move) {
  if (move[0]) return files[move[0][1]] + String(9 - move[0][0]);
  if (move[1]) return files[move[1][1]] + String(8 - move[1][0]) + "h";
  return files[move[2][1]] + String(8 - move[2][0]) + "v";
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const parts = line.trim().split(/\s+/);
  seed = (Number(parts[0]) | 0) * 7919 + parts.length;
  const game = new Game(true); // pawn 0 (e1, white) moves first
  for (const p of parts.slice(1)) play(game, p);
  const move = new AI(Number(sims), Number(uct), false, false).chooseNextMove(game);
  process.stdout.write(notation(move) + "\n");
});
