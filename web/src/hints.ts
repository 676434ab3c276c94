// The hint under a Quoridor board and the first-ply warning: pure, so
// the unit tests can check them without a page.

import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { MatchStatus } from "./gen/tabuleiro/match/v1/match_pb";
import { t } from "./i18n";

/**
 * wallHint is the Quoridor hint for the player to move: "tap" words on
 * a touch screen, "click" words with a mouse. Without wall mode a finger
 * taps a gap twice (preview, then place) and a mouse clicks once (its
 * hover already drew the preview); the mouse words also name the keys
 * where a keyboard is likely (keys: hasKeyboard), not on a phone whose
 * taps came as clicks.
 */
export function wallHint(wallMode: boolean, touch: boolean, keys: boolean): string {
  if (wallMode) return touch ? t("hint.wall.touch") : keys ? t("hint.wall.click") : t("hint.wall.mouse");
  return touch ? t("hint.pawn.touch") : keys ? t("hint.pawn.click") : t("hint.pawn.mouse");
}

/**
 * hasKeyboard tells whether the device likely has a keyboard, for the
 * hints to name keys: its main pointer hovers and is precise (a mouse or
 * a touchpad, as on a desktop or a laptop), unlike a phone's or a
 * tablet's finger. No media queries (the unit tests): no keyboard said.
 */
export function hasKeyboard(): boolean {
  return typeof matchMedia === "function" && matchMedia("(hover: hover) and (pointer: fine)").matches;
}

/** banqiHint is Banqi's hint for the player to move: "tap" on a touch screen, "click" with a mouse. */
export function banqiHint(touch: boolean): string {
  return touch ? t("hint.banqi.touch") : t("hint.banqi.click");
}

/**
 * legalWallHint names a wall shown that can be placed, and how to place it:
 * a mouse's preview takes one click, a finger's a second tap, the keys'
 * cursor Enter (the terminal says "wall e3h: can be placed").
 */
export function legalWallHint(name: string, how: "click" | "tap" | "key"): string {
  return t(`hint.legal.${how}`, { wall: name });
}

/** FIRST_PLY_WARN_MS: a first-ply deadline further off than this is not worth a warning. */
export const FIRST_PLY_WARN_MS = 10 * 60_000;

/**
 * firstPlyWarning tells whether to warn that the match is aborted without
 * a first ply: only while it waits for one and the server gave a deadline
 * (first_ply_deadline) that is near, not for a match without one or one
 * that waits for days.
 */
export function firstPlyWarning(m: { status: MatchStatus; firstPlyDeadline?: Timestamp | undefined }, nowMs: number): boolean {
  if (m.status !== MatchStatus.WAITING || !m.firstPlyDeadline) return false;
  const left = timestampMs(m.firstPlyDeadline) - nowMs;
  return left > 0 && left <= FIRST_PLY_WARN_MS;
}
