import { test } from "node:test";
import assert from "node:assert/strict";
import { inviteCode, joinRoute } from "../src/invite";

test("an invite route names its room code; other routes none", () => {
  assert.equal(inviteCode("#/join/K7MX2QPD?pw=hunter22"), "K7MX2QPD");
  assert.equal(inviteCode("#/join/K7MX2QPD"), "K7MX2QPD");
  assert.equal(inviteCode("#/join/a%20b"), "a b");
  assert.equal(inviteCode("#/join/%E0%A4%A"), "%E0%A4%A", "a malformed escape is shown as given");
  assert.equal(inviteCode("#/play"), "");
  assert.equal(inviteCode("#/"), "");
  assert.equal(inviteCode("#/join/"), "");
});

test("the join box opens a pasted invite link, or the code typed with its password", () => {
  assert.equal(joinRoute("http://127.0.0.1:7070/#/join/K7MX2QPD?pw=a%20b", ""), "#/join/K7MX2QPD?pw=a%20b");
  assert.equal(joinRoute("  see http://x/#/join/K7MX2QPD?pw= thanks", "ignored"), "#/join/K7MX2QPD?pw=");
  assert.equal(joinRoute(" K7MX2QPD ", ""), "#/join/K7MX2QPD");
  assert.equal(joinRoute("K7MX2QPD", "p w"), "#/join/K7MX2QPD?pw=p%20w");
  assert.equal(joinRoute("   ", "x"), "");
});
