import { test } from "node:test";
import assert from "node:assert/strict";
import { api, matchHeaders, MATCH_HEADER, setBaseUrl } from "../src/api";

// Every match call names its match in MATCH_HEADER (the edge keeps a
// match's calls on one replica): unary calls from their request, streams
// from matchHeaders; lobby calls do not.
test("match calls name their match in the affinity header", async () => {
  const seen: { path: string; match: string | null }[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (url: string | URL, init?: RequestInit) => {
    seen.push({ path: new URL(String(url)).pathname, match: new Headers(init?.headers).get(MATCH_HEADER) });
    throw new TypeError("no network in this test");
  }) as typeof fetch;
  try {
    setBaseUrl("http://127.0.0.1:1");
    const a = api("token");
    await a.match.getMatch({ matchId: "m1" }).catch(() => {});
    await a.match.listLegalPlies({ matchId: "m1", expectedPlyNumber: 3 }).catch(() => {});
    await a.lobby.listVariants({}).catch(() => {});
    try {
      for await (const _ of a.match.follow({ matchId: "m2" }, { headers: matchHeaders("m2") })) break;
    } catch {
      // the fake network fails every call
    }
    assert.deepEqual(seen, [
      { path: "/tabuleiro.match.v1.MatchService/GetMatch", match: "m1" },
      { path: "/tabuleiro.match.v1.MatchService/ListLegalPlies", match: "m1" },
      { path: "/tabuleiro.lobby.v1.LobbyService/ListVariants", match: null },
      { path: "/tabuleiro.match.v1.MatchService/Follow", match: "m2" },
    ]);
  } finally {
    globalThis.fetch = realFetch;
  }
});

// A match id that cannot be a header value (not printable ASCII, or too
// long) gets no header: the call goes on and the server says "not found".
test("an id that is no header value names no match", async () => {
  const seen: (string | null)[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (_url: string | URL, init?: RequestInit) => {
    seen.push(new Headers(init?.headers).get(MATCH_HEADER));
    throw new TypeError("no network in this test");
  }) as typeof fetch;
  try {
    setBaseUrl("http://127.0.0.1:1");
    const a = api("token");
    for (const id of ["jogo-ç", "游戏", "a b", "x".repeat(129), "ok~!"]) {
      const err = await a.match.getMatch({ matchId: id }).then(() => undefined, (e: unknown) => e);
      assert.ok(!(err instanceof TypeError) || /network/.test(String(err)), `${id}: ${err}`);
    }
    assert.deepEqual(seen, [null, null, null, null, "ok~!"]);
    assert.deepEqual(matchHeaders("游戏"), {});
    assert.deepEqual(matchHeaders("x".repeat(129)), {});
    assert.deepEqual(matchHeaders("m-1"), { [MATCH_HEADER]: "m-1" });
  } finally {
    globalThis.fetch = realFetch;
  }
});
