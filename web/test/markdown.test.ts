import { test } from "node:test";
import assert from "node:assert/strict";
import { ruleAnchor, rulesHtml } from "../src/markdown";
import quoridor from "../../docs/rules/quoridor.md";
import corners from "../../docs/rules/corners.md";
import banqi from "../../docs/rules/banqi.md";

test("a rules document renders with each rule's heading anchored by its section id", () => {
  const html = rulesHtml(quoridor);
  assert.match(html, /<h4 id="rule-Q3-2" data-rule="Q3.2">Q3.2 No overlap<\/h4>/);
  assert.match(html, /<h3 id="rule-Q3" data-rule="Q3">Q3 Walls<\/h3>/);
  assert.ok(html.includes("<code>e3h</code>"), "inline code");
  assert.ok(html.includes("<strong>Decision:</strong>"), "bold");
  assert.doesNotMatch(html, /\*\*|`/, "no Markdown left over");
  assert.equal(ruleAnchor("C3.1"), "rule-C3-1");
});

test("every section id the rules cite has an anchor in its document", () => {
  for (const [doc, letter] of [[quoridor, "Q"], [corners, "C"], [banqi, "B"]] as const) {
    const html = rulesHtml(doc);
    const ids = [...doc.matchAll(/^#+ ([QCB]\d+(?:\.\d+)*)\b/gm)].map((m) => m[1]);
    assert.ok(ids.length > 3, `${letter}: sections found`);
    for (const id of ids) assert.ok(html.includes(`id="${ruleAnchor(id)}"`), `${id} anchored`);
  }
});

test("lists, tables and paragraphs", () => {
  const html = rulesHtml("# T\n\nA line\nwrapped.\n\n- one\n  more\n- two\n\n| a | b |\n|---|---|\n| `x` | y |\n");
  assert.match(html, /^<h2>T<\/h2>/);
  assert.match(html, /<p>A line\nwrapped.<\/p>/);
  assert.match(html, /<ul>\s*<li>one\s+more<\/li>\s*<li>two<\/li>\s*<\/ul>/);
  assert.match(html, /<table>\s*<thead>\s*<tr>\s*<th>a<\/th>\s*<th>b<\/th>\s*<\/tr>\s*<\/thead>\s*<tbody>\s*<tr>\s*<td><code>x<\/code><\/td>\s*<td>y<\/td>/);
});

test("the players' rules pages leave out what is for developers and the terminal: the engine's package, the command line", () => {
  for (const [name, doc] of [["quoridor", quoridor], ["corners", corners], ["banqi", banqi]] as const) {
    assert.match(doc, /<!-- not on the web -->/, `${name}: the document marks a paragraph (the test would pass on nothing)`);
    const html = rulesHtml(doc);
    assert.doesNotMatch(html, /pkg\/engine|tabuleiro rules show|--section|&lt;!--|<!--/, `${name}: no developer text on the page`);
    assert.match(html, /section id/, `${name}: the players' introduction stays`);
  }
  // Only the marked paragraph goes: the next one stays.
  const html = rulesHtml("# T\n\n<!-- not on the web -->\nFor the terminal\nonly.\n\nFor everyone.\n");
  assert.doesNotMatch(html, /terminal/);
  assert.match(html, /<p>For everyone.<\/p>/);
});
