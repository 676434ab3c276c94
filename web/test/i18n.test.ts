// The catalogs (src/locales/*.json, the server's refusal catalogs
// pkg/platform/reason/locales/*.json) agree with each other and with the
// code, and no user-facing string of web/src is written outside them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import webCatalogs from "catalogs:web";
import reasonCatalogs from "catalogs:reason";
import rulesDocs from "catalogs:rules";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { languages, match, render, type Catalog } from "../src/i18n";
import { decodeErrorInfo, reasonText } from "../src/messages";
import { rulesLint, unusedKeys, usedKeys } from "./lint";

/** webDir is web/ (the tests run from it: npm test, scripts/test.sh). */
const webDir = existsSync(join(process.cwd(), "src/locales")) ? process.cwd() : join(process.cwd(), "web");

function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "gen" && e.name !== "locales") walk(p);
      } else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") && e.name !== "glyphs.ts") {
        out.push({ file: p.slice(webDir.length + 1), text: readFileSync(p, "utf8") });
      }
    }
  };
  walk(join(webDir, "src"));
  // The Go handler serves index.html with the meta.* messages (web.go).
  out.push({ file: "web.go", text: readFileSync(join(webDir, "web.go"), "utf8") });
  return out;
}

const placeholders = (m: Catalog[string]): string => {
  const texts = typeof m === "string" ? [m] : Object.values(m);
  return [...new Set(texts.flatMap((s) => [...(s ?? "").matchAll(/\{([A-Za-z0-9_.]+)\}/g)].map((x) => x[1])))].sort().join(",");
};

/** problems lists where a set of catalogs disagree (the checks of the Go package i18n's Bundle.Problems). */
function problems(set: Record<string, Catalog>): string[] {
  const out: string[] = [];
  const all = new Set(Object.values(set).flatMap((c) => Object.keys(c)));
  if (!set.en) out.push("no en.json");
  for (const [lang, c] of Object.entries(set)) {
    const rules = new Intl.PluralRules(lang);
    for (const k of [...all].sort()) {
      const m = c[k];
      if (m === undefined) {
        out.push(`${lang}.json lacks "${k}"`);
        continue;
      }
      const texts = typeof m === "string" ? [m] : Object.values(m);
      if (texts.some((s) => !s || !s.trim())) out.push(`${lang}.json: "${k}" is empty`);
      if (lang !== "en" && set.en?.[k] !== undefined && placeholders(m) !== placeholders(set.en[k])) {
        out.push(`${lang}.json: "${k}" has placeholders {${placeholders(m)}}, en.json {${placeholders(set.en[k])}}`);
      }
      if (typeof m !== "string") {
        if (!m.other) out.push(`${lang}.json: "${k}" has no "other" form`);
        for (let n = 0; n < 200; n++) {
          const cat = rules.select(n);
          if (cat !== "other" && !m[cat]) {
            out.push(`${lang}.json: "${k}" lacks the plural form "${cat}" (for ${n})`);
            break;
          }
        }
      }
    }
  }
  return out;
}

test("the client's catalogs agree: every key in every language, the same placeholders, the plural forms each language needs", () => {
  const set = webCatalogs as Record<string, Catalog>;
  assert.ok(Object.keys(set).length >= 3, `catalogs found: ${Object.keys(set)}`);
  assert.deepEqual(problems(set), []);
  for (const lang of Object.keys(set)) assert.ok(typeof set[lang]["language.name"] === "string", `${lang}.json names its language`);
});

test("the refusal catalogs the client bundles agree as well", () => {
  assert.deepEqual(problems(reasonCatalogs as Record<string, Catalog>), []);
});

test("the disagreement check finds a missing key, a changed placeholder and a missing plural form", () => {
  const found = problems({
    en: { a: "A {x}", b: { one: "{count} b", other: "{count} bs" }, c: "C" },
    "pt-BR": { a: "A {y}", b: { other: "{count} bs" } },
  });
  assert.deepEqual(found, [
    'pt-BR.json: "a" has placeholders {y}, en.json {x}',
    'pt-BR.json: "b" lacks the plural form "one" (for 0)',
    'pt-BR.json lacks "c"',
  ]);
});

test("every key the code names is in the catalogs, and every catalog key is used", () => {
  const src = sources();
  const en = (webCatalogs as Record<string, Catalog>).en;
  const missing = usedKeys(src).filter((k) => en[k] === undefined);
  assert.deepEqual(missing, [], "keys the code uses that en.json lacks");
  assert.deepEqual(unusedKeys(Object.keys(en), src), [], "keys no code uses");
});

test("no user-facing string in web/src is written outside the catalogs", () => {
  assert.deepEqual(rulesLint(sources()), []);
});

test("the lint finds literals planted in the DOM helpers, text properties, attributes and dialogs", () => {
  const planted = [
    `h("button", { id: "x" }, "Resign")`,
    `h("p", {}, \`Waiting for \${name}\`)`,
    `h("input", { placeholder: "Your name" })`,
    `h("nav", { "aria-label": "Main" })`,
    `el.textContent = "Connecting…";`,
    `el.title = \`The rules of \${g}\`;`,
    `el.setAttribute("aria-label", "Board");`,
    `document.title = "Tabuleiro rules";`,
    `alert("Are you sure?");`,
    `toast("Link copied");`,
    `box.append("Sign out", node);`,
  ].join("\n");
  const found = rulesLint([{ file: "planted.ts", text: planted }]);
  assert.equal(found.length, 11, found.join("\n"));
  // Marks, numbers, notation and catalog messages pass.
  const clean = `h("span", {}, " · ", "—", \`×\${n}\`, t("resign")); el.textContent = t("x"); el.title = ""; toast(errorText(e));`;
  assert.deepEqual(rulesLint([{ file: "clean.ts", text: clean }]), []);
});

test("plurals and numbers follow each language's rules", () => {
  const set = webCatalogs as Record<string, Catalog>;
  assert.equal(render(set, "en", "plies", { count: 1 }), "1 ply");
  assert.equal(render(set, "en", "plies", { count: 2 }), "2 plies");
  assert.equal(render(set, "pt-BR", "plies", { count: 1 }), "1 lance");
  // CLDR puts Portuguese's 0 with 1; a player reads "0 lance" as a slip: none takes the plural.
  assert.equal(render(set, "pt-BR", "plies", { count: 0 }), "0 lances", "none of a thing is plural");
  assert.equal(render(set, "es", "plies", { count: 0 }), "0 jugadas");
  assert.equal(render(set, "pt-BR", "plies", { count: 1234 }), "1.234 lances");
  assert.equal(render(set, "es", "plies", { count: 12345 }), "12.345 jugadas");
  assert.equal(render(set, "en", "plies", { count: 1234 }), "1,234 plies");
  assert.equal(render(set, "xx", "plies", { count: 2 }), "2 plies", "a language without a catalog reads English");
  assert.equal(render(set, "pt-BR", "no.such.key"), "no.such.key");
});

test("the browser's languages choose the catalog: pt-PT finds pt-BR, es-MX finds es, others English", () => {
  assert.ok(languages.includes("en") && languages.includes("pt-BR") && languages.includes("es"));
  assert.equal(match(["pt-PT", "en"], ["en", "pt-BR", "es"]), "pt-BR");
  assert.equal(match(["pt"], ["en", "pt-BR", "es"]), "pt-BR");
  assert.equal(match(["es-MX"], ["en", "pt-BR", "es"]), "es");
  assert.equal(match(["fr-FR", "de"], ["en", "pt-BR", "es"]), "en");
  assert.equal(match(["fr-FR", "es-AR", "en"], ["en", "pt-BR", "es"]), "es");
  assert.equal(match(["PT-br"], ["en", "pt-BR", "es"]), "pt-BR");
  assert.equal(match([], ["en", "pt-BR", "es"]), "en");
});

test("a refusal's ErrorInfo reads in the player's language, by its reason and detail", () => {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).string("RATE_LIMITED");
  w.tag(2, WireType.LengthDelimited).string("tabuleiro.dev");
  w.tag(3, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("retry_seconds").tag(2, WireType.LengthDelimited).string("30").join();
  const info = decodeErrorInfo(w.finish());
  assert.deepEqual(info, { reason: "RATE_LIMITED", domain: "tabuleiro.dev", metadata: { retry_seconds: "30" } });
  const en = reasonText(info, "en")!;
  const pt = reasonText(info, "pt-BR")!;
  assert.match(en, /30 s/);
  assert.match(pt, /30 s/);
  assert.notEqual(en, pt);
  assert.equal(reasonText({ reason: "RATE_LIMITED", metadata: { detail: "nonesuch", retry_seconds: "5" } }, "es"), reasonText({ reason: "RATE_LIMITED", metadata: { retry_seconds: "5" } }, "es"),
    "an unknown detail reads the reason's own message");
  assert.equal(reasonText({ reason: "NO_SUCH_REASON", metadata: {} }, "en"), undefined, "an unknown reason falls back to the server's text");
});

test("the rules pages: English for every game, each language's own where written", () => {
  for (const g of ["quoridor", "corners", "banqi"]) assert.ok(rulesDocs.en[g]?.includes("#"), `docs/rules/${g}.md bundled`);
  for (const [lang, docs] of Object.entries(rulesDocs)) {
    for (const [g, text] of Object.entries(docs)) {
      // The same section ids in every language: a refusal's rule number opens its section.
      const ids = (s: string) => [...s.matchAll(/^#{2,6}\s+([QCB]\d+(?:\.\d+)*)\b/gm)].map((m) => m[1]).join(" ");
      if (lang !== "en") assert.equal(ids(text), ids(rulesDocs.en[g]), `${lang}/${g}.md has English's section ids`);
    }
  }
});

// One form of address a language: Spanish speaks to the player as tú, Brazilian
// Portuguese as você. "Capturadas por tú" (the word "you" put in a sentence
// made for a name) and "le toca" (usted) read wrong.
test("Spanish addresses the player as tú and Brazilian Portuguese as você, throughout", () => {
  const web = webCatalogs as Record<string, Catalog>;
  const texts = (lang: string) => Object.entries(web[lang]).flatMap(([k, m]) => (typeof m === "string" ? [m] : Object.values(m)).map((s) => [k, s ?? ""]));
  const usted = /\b(usted|ustedes|le toca|por tú|para tú|con tú|a tú)\b/i;
  assert.deepEqual(texts("es").filter(([, s]) => usted.test(s)), [], "es: tú throughout");
  const tu = /\b(tu|teu|tua|teus|tuas|contigo|o senhor|a senhora)\b/i;
  assert.deepEqual(texts("pt-BR").filter(([, s]) => tu.test(s)), [], "pt-BR: você throughout");
  assert.equal(render(web, "es", "captured.byYou"), "Capturadas por ti");
  assert.equal(render(web, "pt-BR", "captured.byYou"), "Capturadas por você");
});
