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
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = args.find((a) => a === "--tests" || a === "--e2e") ?? "";
const outArg = args.includes("--out") ? args[args.indexOf("--out") + 1] : undefined;

// The catalogs plugin: "catalogs:web" is every src/locales/<tag>.json,
// "catalogs:reason" every ../pkg/platform/reason/locales/<tag>.json (the
// server's refusals, by reason), "catalogs:rules" every rules document
// (../docs/rules/<game>.md is English, ../docs/rules/<tag>/<game>.md each
// other language's). The directories are listed at build time: adding a
// language is adding its files, with no code change.
const jsonDir = (dir) => Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), "utf8"))]));
function rulesDocs(dir) {
  const md = (d) => Object.fromEntries(readdirSync(d).filter((f) => f.endsWith(".md") && f !== "README.md").sort()
    .map((f) => [f.slice(0, -3), readFileSync(join(d, f), "utf8")]));
  const out = { en: md(dir) };
  for (const d of readdirSync(dir).sort()) {
    if (statSync(join(dir, d)).isDirectory() && /^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(d)) out[d] = md(join(dir, d));
  }
  return out;
}
const catalogs = {
  name: "catalogs",
  setup(b) {
    const dirs = {
      web: join(here, "src/locales"),
      reason: join(here, "../pkg/platform/reason/locales"),
      rules: join(here, "../docs/rules"),
    };
    b.onResolve({ filter: /^catalogs:/ }, (a) => ({ path: a.path.slice(9), namespace: "catalogs" }));
    b.onLoad({ filter: /.*/, namespace: "catalogs" }, (a) => {
      const dir = dirs[a.path];
      if (!dir) return { errors: [{ text: `no catalogs named ${a.path}` }] };
      const data = a.path === "rules" ? rulesDocs(dir) : existsSync(dir) ? jsonDir(dir) : {};
      // Rebuilt (watch mode, tests) when a file of the directory changes.
      const watchFiles = a.path === "rules" ? [] : readdirSync(dir).map((f) => join(dir, f));
      return { contents: JSON.stringify(data), loader: "json", watchDirs: [dir], watchFiles };
    });
  },
};

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
    plugins: [catalogs],
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
    plugins: [catalogs],
    logLevel: "warning",
    // CommonJS packages bundled into ES modules (typescript, for the lint) look for these.
    banner: { js: "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));" },
  });
}

if (arg === "--tests") await tests("test", "test");
else if (arg === "--e2e") await tests("e2e", "e2e", ["playwright-core"]);
else await bundle();
