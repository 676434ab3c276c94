// Builds the web client with esbuild: src/main.ts (and the CSS it imports)
// into dist/app.js and dist/app.css, plus public/ copied as is. Output names
// are fixed and esbuild's output depends only on its input, so the
// committed dist/ can be checked for staleness by rebuilding (scripts/test.sh).
//   node build.mjs          the bundle (dist/)
//   node build.mjs --tests  unit tests into .build/test (node --test runs them)
//   node build.mjs --e2e    browser tests into .build/e2e
// --out DIR writes there instead (scripts/test.sh builds into its scratch
// directory and compares, leaving the working tree alone).
import { build } from "esbuild";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = args.find((a) => a === "--tests" || a === "--e2e") ?? "";
const outArg = args.includes("--out") ? args[args.indexOf("--out") + 1] : undefined;

async function bundle() {
  const out = outArg ?? join(here, "dist");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: { app: join(here, "src/main.ts") },
    bundle: true,
    outdir: out,
    format: "esm",
    target: ["es2022", "chrome110", "firefox115", "safari16"],
    minify: true,
    sourcemap: false,
    legalComments: "none",
    charset: "utf8",
    loader: { ".md": "text" }, // the rules documents, docs/rules/*.md
    logLevel: "warning",
  });
  cpSync(join(here, "public"), out, { recursive: true });
}

async function tests(dir, outDir, external = []) {
  const src = join(here, dir);
  const out = outArg ?? join(here, ".build", outDir);
  rmSync(out, { recursive: true, force: true });
  const entries = readdirSync(src).filter((f) => f.endsWith(".test.ts")).map((f) => join(src, f));
  await build({
    entryPoints: entries,
    bundle: true,
    outdir: out,
    outExtension: { ".js": ".mjs" },
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "inline",
    external,
    loader: { ".md": "text" },
    logLevel: "warning",
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}

if (arg === "--tests") await tests("test", "test");
else if (arg === "--e2e") await tests("e2e", "e2e", ["playwright-core"]);
else await bundle();
