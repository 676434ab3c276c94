// The server's refusals as a player reads them: each carries a
// google.rpc.ErrorInfo (a stable reason and its parameters) that the
// server's reason catalogs (pkg/platform/reason/locales, bundled) word in
// the player's language; a refusal without a known reason shows as written.
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import reasonCatalogs from "catalogs:reason";
import type { Seat } from "./gen/tabuleiro/game/v1/game_pb";
import { current, render, t, type Catalog, type Params } from "./i18n";
import { refusalText } from "./notation";

/**
 * busyMatch is the game in progress named by the lobby's refusal of a
 * second game (reason ALREADY_IN_MATCH, its match_id), if it is one.
 */
export function busyMatch(err: ConnectError): string | undefined {
  const info = errorInfo(err);
  return info?.reason === "ALREADY_IN_MATCH" ? info.metadata.match_id ?? "" : undefined;
}

/** alreadyPlaying is what a player is told when they try to start a second game. */
export function alreadyPlaying(): string {
  return t("msg.alreadyPlaying");
}

/** Refusal is a google.rpc.ErrorInfo: a stable reason (UPPER_SNAKE) and its parameters. */
export interface Refusal {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

const ERROR_INFO = "google.rpc.ErrorInfo";

/** decodeErrorInfo reads a google.rpc.ErrorInfo from its wire form (reason = 1, domain = 2, metadata = 3). */
export function decodeErrorInfo(bytes: Uint8Array): Refusal {
  const out: Refusal = { reason: "", domain: "", metadata: {} };
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WireType.LengthDelimited) out.reason = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) out.domain = r.string();
    else if (field === 3 && wire === WireType.LengthDelimited) {
      const e = new BinaryReader(r.bytes());
      let k = "";
      let v = "";
      while (e.pos < e.len) {
        const [f, w] = e.tag();
        if (f === 1 && w === WireType.LengthDelimited) k = e.string();
        else if (f === 2 && w === WireType.LengthDelimited) v = e.string();
        else e.skip(w);
      }
      out.metadata[k] = v;
    } else r.skip(wire);
  }
  return out;
}

/** errorInfo is a refusal's google.rpc.ErrorInfo, when the server attached one. */
export function errorInfo(err: ConnectError): Refusal | undefined {
  for (const d of err.details) {
    if ("type" in d && d.type === ERROR_INFO) return decodeErrorInfo(d.value);
  }
  return undefined;
}

const reasons = reasonCatalogs as Record<string, Catalog>;

/**
 * reasonText renders a refusal's reason in the player's language from the
 * server's reason catalogs (pkg/platform/reason/locales): the message of
 * "REASON.<detail>" when the metadata names a detail and the catalog has
 * it, else of "REASON"; undefined for a reason no catalog knows (the
 * caller falls back to the server's text). Numbers among the parameters
 * are written as the language writes them.
 */
export function reasonText(r: { reason: string; metadata: Record<string, string> }, lang = current()): string | undefined {
  if (!r.reason) return undefined;
  const en = reasons.en ?? {};
  const detail = r.metadata.detail;
  const key = detail && en[`${r.reason}.${detail}`] !== undefined ? `${r.reason}.${detail}` : r.reason;
  if (en[key] === undefined) return undefined;
  // A parameter with a term ("term.piece.cannon": "canhão") is shown through it, as the server's reason.Text does.
  const params: Params = {};
  for (const [k, v] of Object.entries(r.metadata)) {
    const term = `term.${k}.${v}`;
    if (en[term] !== undefined) params[k] = render(reasons, lang, term);
    else params[k] = /^-?\d+$/.test(v) && v.length < 16 ? Number(v) : v;
  }
  return render(reasons, lang, key, params);
}

/**
 * serverText is a refusal's message for the page when it carries no reason
 * the catalogs know (errorText tries that first): the server's own words.
 */
export function serverText(_code: Code, raw: string): string {
  return raw;
}

/**
 * checkText is a refused ply check's words (ListLegalPlies' PlyCheck: the
 * wall a player points at, a square tapped) in a language other than
 * English: the server's reason from its catalogs, a whole sentence naming
 * the ply and its rule. Undefined in English, or without a known reason:
 * the caller words the server's English reason around the ply.
 */
export function checkText(check: { legal: boolean; errorReason: string; errorMetadata: Record<string, string> } | undefined, lang = current()): string | undefined {
  if (!check || check.legal || !check.errorReason || lang === "en") return undefined;
  return reasonText({ reason: check.errorReason, metadata: check.errorMetadata }, lang);
}

/**
 * sentence ends text with a full stop unless it ends a sentence already:
 * a refusal's words (the catalogs' ILLEGAL_PLY details and the engine's
 * English both end on the rule's number, "(Q2.1)") before a hint follows.
 */
export function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/**
 * squareRefusal is what a player is told when the selected piece (or
 * pawn) cannot go to a square: the server's refusal (said, checkText's
 * words in the player's language; else reason, the server's English,
 * worded around what), else that what is no legal ply; then the hint
 * (pick, "" for none). The refusal ends with a full stop after its rule
 * ("… (Q2.1). Pick one of the dots.") in every language.
 */
export function squareRefusal(what: string, said: string | undefined, reason: string, you: Seat, hint: string): string {
  const text = sentence(said ?? (reason ? refusalText(what, reason, you) : t("ply.illegal", { what })));
  return hint ? `${text} ${hint}` : text;
}

/**
 * wallRefusal is what a player is told when a wall cannot go down: the
 * server's check in the player's language, else its reason worded around
 * the wall, else that the wall cannot go there; a sentence.
 */
export function wallRefusal(wall: string, check: Parameters<typeof checkText>[0], reason: string, you: Seat | undefined): string {
  return sentence(checkText(check) ?? (reason ? refusalText(t("wall.named", { wall }), reason, you) : t("wall.cannot", { wall })));
}
