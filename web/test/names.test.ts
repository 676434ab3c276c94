import { test } from "node:test";
import assert from "node:assert/strict";
import { nameProblem, nameRefusal, nameRule } from "../src/names";
import fixture from "./names.json";

test("the page takes the names the lobby takes and refuses the ones it refuses (names.json, shared with the lobby's test)", () => {
  for (const n of fixture.valid) assert.equal(nameProblem(n), undefined, `${JSON.stringify(n)} is a valid name`);
  for (const n of fixture.invalid) assert.ok(nameProblem(n), `${JSON.stringify(n)} is refused`);
});

test("a refused name is told in words: the character, the rule, no byte offsets or field names", () => {
  const bang = nameProblem("!Ana")!;
  assert.match(bang, /^"!" cannot be in a name\. Names may use letters, digits, spaces, - _ and \./);
  assert.doesNotMatch(bang, /byte|display_name/);
  assert.match(nameProblem("A")!, /at least 2 characters/);
  assert.match(nameProblem("x".repeat(25))!, /at most 24 characters \(this one has 25\)/);
  assert.match(nameProblem("Ｂｏｂ")!, /"Bob"/);
  assert.match(nameProblem("Аnа")!, /mixes Cyrillic and Latin/);
  assert.match(nameProblem("..")!, /at least one letter or digit/);
});

test("the server's refusal of a name loses its field name and byte offset", () => {
  const s = nameRefusal("display_name: character '!' at byte 0 is not allowed (letters, digits, space, _ - . only)");
  assert.equal(s, `This name cannot be used (character '!' is not allowed (letters, digits, space, _ - . only)). ${nameRule()}`);
  assert.equal(nameRefusal("The server cannot be reached."), "The server cannot be reached.");
});
