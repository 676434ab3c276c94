// Clients of the Tabuleiro API over the Connect protocol (fetch, JSON), at
// the address the page was served from: `tabuleiro serve` serves both.
import { createClient, ConnectError, Code, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { LobbyService } from "./gen/tabuleiro/lobby/v1/lobby_service_pb";
import { MatchService } from "./gen/tabuleiro/match/v1/match_service_pb";
import { errorInfo, reasonText, serverText } from "./messages";
import { t } from "./i18n";

export interface Api {
  lobby: Client<typeof LobbyService>;
  match: Client<typeof MatchService>;
}

let baseUrl = typeof location !== "undefined" ? location.origin : "http://127.0.0.1:7070";

/** setBaseUrl points the clients elsewhere (tests). */
export function setBaseUrl(u: string): void {
  baseUrl = u;
  cache.clear();
}

/**
 * MATCH_HEADER names the match a match call is about, so that the edge
 * sends every call of one match to the same match replica (the server's
 * pkg/platform/affinity). Unary calls get it from their request; the
 * streams pass matchHeaders.
 */
export const MATCH_HEADER = "tabuleiro-match-id";

/**
 * nameable reports whether a match id can name its match in MATCH_HEADER:
 * printable ASCII, 1 to 128 characters, as the server's affinity requires.
 * Any other id (one typed into a link) gets no header: Headers.set would
 * throw on it, and the server answers it "not found" anyway.
 */
function nameable(id: string): boolean {
  return /^[!-~]{1,128}$/.test(id);
}

/** matchHeaders are the call options' headers of a stream of match id. */
export function matchHeaders(id: string): Record<string, string> {
  return nameable(id) ? { [MATCH_HEADER]: id } : {};
}

const matchAffinity: Interceptor = (next) => async (req) => {
  if (!req.stream && req.service.typeName === MatchService.typeName && !req.header.has(MATCH_HEADER)) {
    const id = (req.message as { matchId?: unknown }).matchId;
    if (typeof id === "string" && nameable(id)) req.header.set(MATCH_HEADER, id);
  }
  return next(req);
};

function transport(token: string | undefined): Transport {
  const auth: Interceptor = (next) => async (req) => {
    if (token) req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  return createConnectTransport({ baseUrl, interceptors: [auth, matchAffinity] });
}

const cache = new Map<string, Api>();

/** api returns the clients that call as the holder of token (none: public calls). */
export function api(token?: string): Api {
  const key = token ?? "";
  let a = cache.get(key);
  if (!a) {
    const t = transport(token);
    a = { lobby: createClient(LobbyService, t), match: createClient(MatchService, t) };
    cache.set(key, a);
  }
  return a;
}

/**
 * errorText is a refusal as a player reads it: the server's reason, without
 * the code's prefix, in a player's words where the server's are a program's
 * (messages.ts).
 */
export function errorText(err: unknown): string {
  if (err instanceof ConnectError) {
    if (err.code === Code.Unavailable || err.code === Code.Unknown && /fetch|network/i.test(err.rawMessage)) {
      return t("err.unreachable");
    }
    // A refusal with a reason the catalogs know reads in the player's language.
    const info = errorInfo(err);
    const known = info && reasonText(info);
    if (known) return known;
    if (err.code === Code.Unauthenticated) return t("err.expired");
    return err.rawMessage ? serverText(err.code, err.rawMessage) : String(err.code);
  }
  return err instanceof Error ? err.message : String(err);
}

export { ConnectError, Code };
