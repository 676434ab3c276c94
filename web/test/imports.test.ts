// No import circle in web/src: a module imports only what does not import
// it back, directly or through others (a circle makes the bundle's order of
// evaluation decide whether a binding is ready, and ties screens together).
// Type-only imports count too: they are the same dependency to a reader.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const webDir = existsSync(join(process.cwd(), "src/locales")) ? process.cwd() : join(process.cwd(), "web");
const src = join(webDir, "src");

/** graph maps each module of web/src (path from src/) to the modules of web/src it imports. */
export function importGraph(files: Map<string, string>): Map<string, string[]> {
  const g = new Map<string, string[]>();
  const spec = /(?:^|[;\s])(?:import|export)\s[^;]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const [file, text] of files) {
    const deps: string[] = [];
    for (const m of text.matchAll(spec)) {
      const base = join(dirname(file), m[1] ?? m[2]);
      const dep = [`${base}.ts`, join(base, "index.ts"), base].find((f) => files.has(f));
      if (dep) deps.push(dep);
    }
    g.set(file, deps);
  }
  return g;
}

/** circles lists each import circle found by a depth-first walk, as "a → b → a". */
export function circles(g: Map<string, string[]>): string[] {
  const out: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, "open");
    stack.push(n);
    for (const d of g.get(n) ?? []) {
      if (state.get(d) === "open") out.push([...stack.slice(stack.indexOf(d)), d].join(" → "));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of [...g.keys()].sort()) if (!state.has(n)) visit(n);
  return out;
}

function sources(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) files.set(relative(src, p), readFileSync(p, "utf8"));
    }
  };
  walk(src);
  return files;
}

test("web/src has no import circle", () => {
  const files = sources();
  assert.ok(files.has("ui/app.ts") && files.has("main.ts"), `sources not found under ${src}`);
  assert.deepEqual(circles(importGraph(files)), []);
});

test("the circle check finds a circle, type-only imports included", () => {
  const files = new Map([
    ["ui/a.ts", 'import { b } from "./b";\n'],
    ["ui/b.ts", 'import type { C } from "../c";\nexport const b = 1;\n'],
    ["c.ts", 'export {\n  a,\n} from "./ui/a";\n'],
    ["d.ts", 'import { b } from "./ui/b";\n'],
  ]);
  assert.deepEqual(circles(importGraph(files)), ["c.ts → ui/a.ts → ui/b.ts → c.ts"]);
});
