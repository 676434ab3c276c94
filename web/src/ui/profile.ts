// Public profiles on "#/u/USERNAME" (lobby.v1 GetProfile, no sign-in
// needed): an account's username, since when it plays, its ratings, its
// record per game and its recent public games. An account is shown by
// its username wherever players are named, and playerLink makes that name
// a link to its profile (history, live games, the game and replay screens).
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, Code, ConnectError, errorText } from "../api";
import { BotLevel, Reason, Result, type Participant } from "../gen/tabuleiro/game/v1/game_pb";
import type { MatchSummary } from "../gen/tabuleiro/lobby/v1/lobby_pb";
import { dateTime, num, t } from "../i18n";
import { gameName, playerName, ratingRow, timeControlText, variantName } from "../notation";
import type { Identity } from "../session";
import { h } from "./dom";
import { frame } from "./shell";

/** profileRoute is the route of a username's profile ("#/u/Ana_B"). */
export function profileRoute(username: string): string {
  return `#/u/${encodeURIComponent(username)}`;
}

/**
 * playerLink is a participant's name as the page shows it (playerName),
 * a link to its profile when it is an account's; newTab opens it in
 * another tab (from a game being played).
 */
export function playerLink(p: Pick<Participant, "displayName" | "botLevel" | "username">, cls = "", newTab = false): HTMLElement {
  const name = playerName(p);
  if (!p.username || p.botLevel !== BotLevel.UNSPECIFIED) return h("span", cls ? { class: cls } : {}, name);
  return h("a", { class: `player-link${cls ? ` ${cls}` : ""}`, href: profileRoute(p.username), "data-username": p.username,
    ...(newTab ? { target: "_blank", rel: "noopener" } : {}) }, name);
}

/** playerLinks are a game's seats' names, linked, separated by "vs". */
export function playerLinks(ps: Participant[], rated = false): Node[] {
  const out: Node[] = [];
  ps.forEach((p, i) => {
    if (i) out.push(document.createTextNode(` ${t("vs")} `));
    out.push(playerLink(p));
    if (rated && p.rating !== undefined) out.push(document.createTextNode(` (${p.rating})`));
  });
  return out;
}

/** resultFor is how a finished game went for the profile's seat, in words. */
function resultFor(g: MatchSummary): { text: string; cls: string } {
  const o = g.outcome;
  if (o?.reason === Reason.ABORTED) return { text: t("profile.aborted"), cls: "" };
  if (o?.result === Result.DRAW) return { text: t("profile.drawn"), cls: "draw" };
  if (o?.result === Result.WIN) return o.winner === g.yourSeat ? { text: t("profile.won"), cls: "win" } : { text: t("profile.lost"), cls: "loss" };
  return { text: "", cls: "" };
}

/** profileScreen shows the profile of username; id is the viewer, if signed in. */
export async function profileScreen(id: Identity | undefined, username: string): Promise<void> {
  frame(id, h("section", { class: "panel narrow" }, h("p", { class: "muted" }, t("loading"))));
  let r;
  try {
    r = (await api(id?.token).lobby.getProfile({ username, recentGames: 10 })).profile!;
  } catch (err) {
    const gone = err instanceof ConnectError && err.code === Code.NotFound;
    frame(id, h("section", { class: "panel narrow", id: "profile-missing" },
      h("h1", {}, t("profile.missing.title")),
      h("p", { class: gone ? "lead" : "error" }, gone ? t("profile.missing.text", { username }) : errorText(err)),
      h("a", { class: "button", href: "#/" }, t("back.lobby"))));
    document.title = t("profile.missing.title");
    return;
  }
  const table = (head: string[], rows: string[][]) => h("div", { class: "table-scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, ...head.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((x) => h("td", {}, x)))))));
  const ratings = r.ratings.length
    ? table([t("stats.game"), t("lobby.variant"), t("stats.rating"), t("stats.deviation"), t("stats.games")], r.ratings.map(ratingRow))
    : h("p", { class: "muted" }, t("profile.noRated"));
  const records = r.records.length
    ? table([t("stats.game"), t("stats.won"), t("stats.drawn"), t("stats.lost")],
      r.records.map((x) => [gameName(x.game), num(x.wins), num(x.draws), num(x.losses)]))
    : h("p", { class: "muted" }, t("profile.noGames"));
  const recent = h("div", { class: "list", id: "profile-games" },
    ...(r.recentGames.length ? r.recentGames.map((g) => {
      const res = resultFor(g);
      return h("div", { class: "summary", "data-match": g.matchId },
        h("div", { class: "summary-main" },
          h("div", { class: "summary-title" }, `${gameName(g.game)} · ${variantName(g.game, g.variant)}`, g.rated ? h("span", { class: "badge" }, t("rated")) : false),
          h("div", { class: "summary-players" }, ...playerLinks(g.participants)),
          h("div", { class: "muted small" }, `${t("plies", { count: g.plyCount })} · ${timeControlText(g.timeControl)}`)),
        h("div", { class: "summary-side" },
          res.text ? h("span", { class: `result ${res.cls}` }, res.text) : false,
          h("span", { class: "muted small" }, g.endedAt ? dateTime(timestampMs(g.endedAt)) : ""),
          // A record is read by a signed-in player (GetGame needs a token).
          id ? h("a", { class: "button small", href: `#/replay/${g.matchId}` }, t("history.replay")) : false));
    }) : [h("p", { class: "muted" }, t("profile.noGames"))]));
  frame(id, h("section", { class: "panel profile", id: "profile", "data-username": r.username },
    h("h1", {}, r.username),
    r.memberSince ? h("p", { class: "muted", id: "profile-since" }, t("profile.since", { date: dateTime(timestampMs(r.memberSince)) })) : false,
    h("h2", {}, t("stats.ratings")), ratings,
    h("h2", {}, t("profile.record")), records,
    h("h2", {}, t("profile.recent")), recent));
  document.title = t("title.profile", { username: r.username });
}
