import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { errorText } from "../src/api";
import { Seat } from "../src/gen/tabuleiro/game/v1/game_pb";
import { busyMatch, checkText, squareRefusal } from "../src/messages";
import { setLanguage, t } from "../src/i18n";

/** refusal is a ConnectError as the server sends it: an English message and a google.rpc.ErrorInfo. */
function refusal(code: Code, msg: string, reason: string, metadata: Record<string, string> = {}): ConnectError {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).string(reason);
  w.tag(2, WireType.LengthDelimited).string("tabuleiro.dev");
  for (const [k, v] of Object.entries(metadata)) {
    w.tag(3, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(k).tag(2, WireType.LengthDelimited).string(v).join();
  }
  const e = new ConnectError(msg, code);
  e.details.push({ type: "google.rpc.ErrorInfo", value: w.finish() });
  return e;
}

const raw: ConnectError[] = [
  refusal(Code.FailedPrecondition, "ply 3 refused: the next ply is number 5", "STALE_PLY", { ply_number: "3", current_ply_number: "5" }),
  refusal(Code.FailedPrecondition, "ply 7 refused: the game is over", "GAME_OVER"),
  refusal(Code.PermissionDenied, "that ply belongs to the other seat", "NOT_YOUR_TURN"),
  refusal(Code.Aborted, "the seat joined again on another stream", "SEAT_ELSEWHERE"),
  refusal(Code.Aborted, "match changed; retry", "MATCH_CHANGED"),
  refusal(Code.FailedPrecondition, "player 01HXP is already in match 01HXM; finish or resign it first", "ALREADY_IN_MATCH", { match_id: "01HXM" }),
  refusal(Code.FailedPrecondition, "illegal ply e3h: the wall overlaps the wall e3h (Q3.2)", "ILLEGAL_PLY", { ply: "e3h", rule: "Q3.2", detail: "wall_overlaps", wall: "e3h" }),
];

test("a refusal is worded by its reason, in the player's language, never in the protocol's words", () => {
  for (const lang of ["en", "pt-BR", "es"]) {
    setLanguage(lang, false);
    for (const e of raw) {
      const text = errorText(e);
      assert.notEqual(text, e.rawMessage, `${lang}: reworded: ${e.rawMessage}`);
      assert.doesNotMatch(text, /refused|stream/i, `${lang}: ${e.rawMessage} → ${text}`);
    }
    assert.match(errorText(raw[6]), /\(Q3\.2\)/, `${lang}: the rule's number stays`);
  }
  setLanguage("pt-BR", false);
  assert.match(errorText(raw[6]), /muro/);
  setLanguage("en", false);
});

test("the lobby's refusal of a second game names the game in progress", () => {
  assert.equal(busyMatch(raw[5]), "01HXM");
  assert.equal(busyMatch(raw[1]), undefined);
});

test("a refusal without a reason the catalogs know stays as the server wrote it", () => {
  const rule = "illegal ply e3h: the wall overlaps wall e3h (Q3.1)";
  assert.equal(errorText(new ConnectError(rule, Code.FailedPrecondition)), rule);
  assert.equal(errorText(refusal(Code.PermissionDenied, "wrong room password", "NO_SUCH_REASON")), "wrong room password");
});

test("a refused square's words end the rule's reference with a full stop before the hint, in every language and game", () => {
  const refusals = [
    { what: "ply.pawnTo", square: "e6", from: "", english: "illegal ply e6: e4 to e6 is not a pawn move: one square up, down, left or right, or a jump over the adjacent opponent (Q2.1)", metadata: { ply: "e6", rule: "Q2.1", detail: "not_a_pawn_move", from: "e4", to: "e6" } },
    { what: "ply.to", square: "e5", from: "c3", english: "illegal ply c3-e5: no jump chain leads from c3 to e5 (C3.2)", metadata: { ply: "c3-e5", rule: "C3.2", detail: "no_jump_chain", from: "c3", to: "e5" } },
    { what: "ply.to", square: "c3", from: "a1", english: "illegal ply a1-c3: a piece steps one square up, down, left or right; c3 is not next to a1 (B3)", metadata: { ply: "a1-c3", rule: "B3", detail: "step_not_adjacent", from: "a1", to: "c3" } },
  ];
  for (const lang of ["en", "pt-BR", "es"]) {
    setLanguage(lang, false);
    const hint = t("pick.dot");
    for (const r of refusals) {
      const what = t(r.what, { from: r.from, square: r.square });
      const said = checkText({ legal: false, errorReason: "ILLEGAL_PLY", errorMetadata: r.metadata });
      const text = squareRefusal(what, said, r.english, Seat.FIRST, hint);
      assert.ok(text.endsWith(`(${r.metadata.rule}). ${hint}`), `${lang}: ${text}`);
      assert.doesNotMatch(text, /\.\./, `${lang}: ${text}`);
    }
    assert.equal(squareRefusal(t("ply.to", { from: "a1", square: "a2" }), undefined, "", Seat.FIRST, hint), `${t("ply.illegal", { what: t("ply.to", { from: "a1", square: "a2" }) })} ${hint}`);
  }
});
