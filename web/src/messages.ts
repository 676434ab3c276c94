// The server's refusals as a player reads them: what happened and what to
// do. Most refusals are written for people already (a rule broken, with
// its number); a few are the protocol's own words ("ply 3 refused: the
// next ply is number 5") and are put in the player's terms here.
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import reasonCatalogs from "catalogs:reason";
import { current, render, t, type Catalog, type Params } from "./i18n";

/** BUSY is the lobby's refusal of a second game while one is in progress (lobby.BusyError). */
const BUSY = /\bis already in match (\S+?);/;

/** busyMatch is the game in progress named by a "player … is already in match …" refusal, if it is one. */
export function busyMatch(code: Code, raw: string): string | undefined {
  if (code !== Code.FailedPrecondition) return undefined;
  return BUSY.exec(raw)?.[1];
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
  const params: Params = {};
  for (const [k, v] of Object.entries(r.metadata)) params[k] = /^-?\d+$/.test(v) && v.length < 16 ? Number(v) : v;
  return render(reasons, lang, key, params);
}

/**
 * serverText is a refusal's message for the page: the server's own words
 * when they are a player's, else what happened and what to do.
 */
export function serverText(code: Code, raw: string): string {
  if (busyMatch(code, raw) !== undefined) return alreadyPlaying();
  if (/\bply \d+ refused: the game is over\b/.test(raw) || code === Code.FailedPrecondition && /\bgame is over\b/.test(raw)) {
    return t("msg.over");
  }
  if (/\bply \d+ refused: the next ply is number \d+/.test(raw)) return t("msg.movedOn");
  if (/\bthat ply belongs to the other seat\b/.test(raw)) return t("msg.notYourTurn");
  if (/\bthe seat joined again on another stream\b/.test(raw)) return t("msg.otherTab");
  if (/\bhold no seat in this match\b|\bcaller holds no seat\b/.test(raw)) return t("msg.noSeat");
  if (/^match changed(;| concurrently)/.test(raw) || /not confirmed by a replica in time/.test(raw)) {
    return t("msg.busyServer");
  }
  return raw;
}
