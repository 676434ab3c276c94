import { test } from "node:test";
import assert from "node:assert/strict";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { MatchStatus } from "../src/gen/tabuleiro/match/v1/match_pb";
import { banqiHint, FIRST_PLY_WARN_MS, firstPlyWarning, legalWallHint, wallHint } from "../src/hints";
import { setLanguage } from "../src/i18n";

test("the first-ply warning shows only for a waiting match with a near deadline", () => {
  const now = 1_000_000;
  const soon = timestampFromMs(now + 30_000);
  assert.equal(firstPlyWarning({ status: MatchStatus.WAITING, firstPlyDeadline: soon }, now), true);
  assert.equal(firstPlyWarning({ status: MatchStatus.WAITING }, now), false, "no deadline, no warning");
  assert.equal(firstPlyWarning({ status: MatchStatus.IN_PROGRESS, firstPlyDeadline: soon }, now), false, "the first ply came");
  assert.equal(firstPlyWarning({ status: MatchStatus.WAITING, firstPlyDeadline: timestampFromMs(now + FIRST_PLY_WARN_MS + 1) }, now), false, "a wait of days is no threat");
  assert.equal(firstPlyWarning({ status: MatchStatus.WAITING, firstPlyDeadline: timestampFromMs(now - 1) }, now), false, "past: the server ends it");
});

test("the wall hint says tap on a touch screen and click with a mouse", () => {
  for (const wall of [false, true]) {
    for (const keys of [false, true]) {
      assert.match(wallHint(wall, true, keys), /\btap\b/i);
      assert.doesNotMatch(wallHint(wall, true, keys), /click|point/i);
      assert.match(wallHint(wall, false, keys), /\bclick\b/i);
      assert.doesNotMatch(wallHint(wall, false, keys), /\btap\b|point/i);
      assert.doesNotMatch(wallHint(wall, true, keys), /\bEnter\b/);
    }
    assert.match(wallHint(wall, false, true), /\bEnter\b/, "with a mouse and a keyboard: the hint names the keys");
  }
  assert.match(wallHint(false, true, false), /twice/, "without the Wall button a gap takes two taps");
});

test("the wall hint names no keys where there is no keyboard (a phone whose taps come as clicks), in every language", () => {
  try {
    for (const lang of ["en", "pt-BR", "es"]) {
      setLanguage(lang, false);
      for (const wall of [false, true]) {
        for (const touch of [false, true]) {
          const hint = wallHint(wall, touch, false);
          assert.doesNotMatch(hint, /\b(Enter|Intro|W|R)\b|arrow|setas|flechas/i, `${lang}, wall mode ${wall}, touch ${touch}: ${hint}`);
        }
        assert.match(wallHint(wall, false, true), /\b(Enter|Intro)\b/, `${lang}, wall mode ${wall}, with a keyboard`);
      }
    }
  } finally {
    setLanguage("en", false);
  }
});

test("with a mouse one click places a wall, the Wall button on or off (its hover drew it); a finger taps twice", () => {
  for (const wall of [false, true]) {
    for (const keys of [false, true]) assert.doesNotMatch(wallHint(wall, false, keys), /again|twice/, `mouse, wall mode ${wall}`);
  }
  assert.match(wallHint(true, true, false), /again/);
});

test("a wall shown that can be placed is named, with how to place it", () => {
  assert.equal(legalWallHint("e3h", "click"), "Wall e3h: click to place it.");
  assert.equal(legalWallHint("e3h", "tap"), "Wall e3h: tap it again to place it.");
  assert.equal(legalWallHint("d7v", "key"), "Wall d7v: Enter to place it.");
});

test("Banqi's hint says tap on a touch screen and click with a mouse", () => {
  assert.match(banqiHint(true), /^Tap /);
  assert.match(banqiHint(false), /^Click /);
});
