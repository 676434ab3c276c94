import { test } from "node:test";
import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Game } from "../src/gen/tabuleiro/game/v1/game_pb";
import { RoomSchema, type Room } from "../src/gen/tabuleiro/lobby/v1/lobby_pb";
import { inviteCode, inviteLine, joinRoute } from "../src/invite";

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

test("an invitation names its host, the game, its variant and the clock", () => {
  const room = (o: object): Room => create(RoomSchema, {
    game: Game.QUORIDOR, variant: "standard", timeControl: { baseMs: 300_000n, incrementMs: 3_000n },
    members: [{ playerId: "p_a", displayName: "Alice", host: true }], ...o,
  } as MessageInitShape<typeof RoomSchema>);
  assert.equal(inviteLine(room({})), "Alice invites you to Quoridor (Standard), 5+3");
  assert.equal(inviteLine(room({ game: Game.CORNERS, variant: "classic-3x3", timeControl: undefined })), "Alice invites you to Corners (Classic 3×3), no clock");
  assert.equal(inviteLine(room({ rated: true })), "Alice invites you to Quoridor (Standard), 5+3, rated");
  assert.equal(inviteLine(room({ members: [] })), "You are invited to Quoridor (Standard), 5+3");
});
