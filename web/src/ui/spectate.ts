// Spectators of a private game. A private match is watchable only by its
// seats and the players a seat invited (match.v1 InviteSpectator), and the
// person a player wants to invite has no identity yet. So the player's
// page signs a guest in for them (lobby.v1 SignInGuest, with the name the
// player gives them), invites that guest, and puts the guest's player id
// and refresh token in the link's fragment (never sent to a server by the
// browser): whoever opens the link first takes that guest identity (the
// refresh token is good once), may rename it, and watches the board.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, errorText, ConnectError, Code } from "../api";
import { MatchStatus, type Match } from "../gen/tabuleiro/match/v1/match_pb";
import type { Identity } from "../session";
import { nameProblem, nameRefusal } from "../names";
import { t } from "../i18n";
import { clear, h, toast } from "./dom";
import { frame, session } from "./shell";

const invitedKey = (matchId: string) => `tabuleiro.invited.${matchId}`;
const watcherKey = (matchId: string) => `tabuleiro.spectator.${matchId}`;

/** invitedNames are the names this browser's player gave the spectators they invited to a match. */
export function invitedNames(matchId: string): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(invitedKey(matchId)) ?? "[]");
    return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** spectateLink is the link that lets its first opener watch the match as the invited guest. */
export function spectateLink(base: string, matchId: string, playerId: string, refreshToken: string, name: string): string {
  const q = new URLSearchParams({ p: playerId, k: refreshToken, n: name });
  return `${base}#/spectate/${encodeURIComponent(matchId)}?${q}`;
}

/**
 * inviteSpectator signs a guest in under name, invites them to watch the
 * match (the caller must hold a seat of a private match), and returns the
 * link that hands that guest to the person invited.
 */
export async function inviteSpectator(id: Identity, matchId: string, name: string): Promise<string> {
  const g = await api().lobby.signInGuest({ displayName: name });
  await api(id.token).match.inviteSpectator({ matchId, playerId: g.playerId });
  localStorage.setItem(invitedKey(matchId), JSON.stringify([...invitedNames(matchId), name]));
  return spectateLink(`${location.origin}${location.pathname}`, matchId, g.playerId, g.refreshToken, name);
}

/**
 * SpectatorPanel is the game panel's part for a seat of a game against a
 * person: how many watch and whom the player invited, and, in a private
 * game in progress, the form that makes an invite link.
 */
export class SpectatorPanel {
  readonly el = h("section", { class: "spectators", id: "spectators", "aria-live": "polite" });
  private readonly line = h("p", { class: "small", id: "watchers" });
  private readonly form: HTMLElement;
  private readonly name = h("input", { id: "spectator-name", maxlength: 24, autocomplete: "off", placeholder: t("spectate.name"), "aria-label": t("spectate.name") }) as HTMLInputElement;
  private readonly out = h("div", { class: "spectator-link" });
  private readonly share = h("div", { class: "spectator-link", hidden: true });

  constructor(private readonly id: Identity, private readonly matchId: string) {
    this.form = h("form", { class: "row", id: "spectator-form", novalidate: true, onsubmit: (e: Event) => { e.preventDefault(); void this.invite(); } },
      this.name, h("button", { type: "submit", class: "small", id: "invite-spectator" }, t("spectate.invite")));
    this.el.append(this.line, this.form, this.out, this.share);
  }

  /** update shows the match's watchers; the invite form only while a private match goes on. */
  update(m: Match): void {
    const names = invitedNames(this.matchId);
    const count = m.spectators;
    this.line.textContent = names.length
      ? t("spectate.watchingInvited", { watching: count ? t("watching", { count }) : t("spectate.nobody"), names: names.join(", ") })
      : count ? t("watching", { count }) : t("spectate.nobody");
    const live = m.status !== MatchStatus.FINISHED;
    this.form.hidden = !m.private || !live;
    if (this.form.hidden) clear(this.out);
    // A public game needs no invite: its link lets anyone watch.
    this.share.hidden = m.private || !live;
    if (!this.share.hidden && !this.share.firstChild) {
      const url = `${location.origin}${location.pathname}#/watch/${encodeURIComponent(this.matchId)}`;
      const input = h("input", { id: "watch-link", readonly: true, value: url, "aria-label": t("spectate.watchLink"), onfocus: (e: Event) => (e.target as HTMLInputElement).select() }) as HTMLInputElement;
      this.share.append(h("p", { class: "muted small" }, t("spectate.public")), h("div", { class: "row" }, input, h("button", { class: "small", onclick: async () => {
        try { await navigator.clipboard.writeText(url); toast(() => t("room.copied")); } catch { input.select(); }
      } }, t("room.copy"))));
    }
  }

  private async invite(): Promise<void> {
    const name = this.name.value.trim() || t("spectate.defaultName");
    const problem = nameProblem(name);
    if (problem) {
      toast(problem, "error");
      return;
    }
    const btn = this.form.querySelector("button")!;
    btn.disabled = true;
    try {
      const url = await inviteSpectator(this.id, this.matchId, name);
      const input = h("input", { id: "spectator-link", readonly: true, value: url, "aria-label": t("spectate.link"), onfocus: (e: Event) => (e.target as HTMLInputElement).select() }) as HTMLInputElement;
      clear(this.out);
      this.out.append(h("p", { class: "muted small" }, t("spectate.send", { name })),
        h("div", { class: "row" }, input, h("button", { class: "small", onclick: async () => {
          try { await navigator.clipboard.writeText(url); toast(() => t("room.copied")); } catch { input.select(); }
        } }, t("room.copy"))));
      this.name.value = "";
      this.line.textContent = t("spectate.watchingInvited", { watching: t("spectate.nobody"), names: invitedNames(this.matchId).join(", ") });
    } catch (err) {
      toast(() => err instanceof ConnectError && err.code === Code.InvalidArgument ? nameRefusal(errorText(err)) : errorText(err), "error");
    } finally {
      btn.disabled = false;
    }
  }
}

/** watcher is the guest identity this browser took from an invite link to watch the match, if any. */
export function watcher(matchId: string): Identity | undefined {
  try {
    const v = JSON.parse(localStorage.getItem(watcherKey(matchId)) ?? "null");
    return v && typeof v.token === "string" && typeof v.playerId === "string" && v.expiresAt > Date.now() ? v : undefined;
  } catch {
    return undefined;
  }
}

/** redeem takes the invited guest identity of a link and gives it name. */
async function redeem(playerId: string, refreshToken: string, name: string): Promise<Identity> {
  const r = await api().lobby.refreshToken({ refreshToken });
  let token = r.token;
  let expiresAt = r.expiresAt ? timestampMs(r.expiresAt) : Date.now() + 86400_000;
  const renamed = await api(token).lobby.setDisplayName({ displayName: name });
  token = renamed.token;
  if (renamed.expiresAt) expiresAt = timestampMs(renamed.expiresAt);
  return { token, playerId, name, expiresAt, refreshToken: r.refreshToken };
}

/**
 * spectateScreen is an invite link's page: who is invited to watch, a
 * name (the one the player gave, to keep or change) and Watch. Signed
 * out, the invited guest becomes this browser's identity; signed in, it
 * is kept beside it, for watching this match only.
 */
export function spectateScreen(id: Identity | undefined, matchId: string, params: URLSearchParams): void {
  const playerId = params.get("p") ?? "";
  const key = params.get("k") ?? "";
  const own = watcher(matchId);
  if (own || (id && !key)) {
    location.replace(`#/watch/${encodeURIComponent(matchId)}`);
    return;
  }
  const err = h("p", { class: "error field-error", id: "name-error", role: "alert" });
  const input = h("input", { id: "name", name: "name", autocomplete: "nickname", maxlength: 24, value: params.get("n") ?? id?.name ?? "", placeholder: t("signin.name"), "aria-label": t("signin.name") }) as HTMLInputElement;
  const form = h("form", { class: "signin", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    const name = input.value.trim();
    const problem = nameProblem(name);
    err.textContent = problem ?? "";
    if (problem) return;
    try {
      const guest = await redeem(playerId, key, name);
      if (id) localStorage.setItem(watcherKey(matchId), JSON.stringify(guest));
      else session.me = guest;
      location.replace(`#/watch/${encodeURIComponent(matchId)}`);
    } catch (e2) {
      err.textContent = e2 instanceof ConnectError && e2.code === Code.Unauthenticated ? t("spectate.used")
        : e2 instanceof ConnectError && e2.code === Code.InvalidArgument ? nameRefusal(errorText(e2)) : errorText(e2);
    }
  } },
  h("label", { for: "name" }, t("spectate.label")),
  h("div", { class: "row" }, input, h("button", { type: "submit", class: "primary", id: "watch-invite" }, t("signin.watch"))),
  err);
  frame(id, h("section", { class: "panel narrow invite-card" },
    h("h1", { id: "spectate-title" }, t("spectate.title")),
    h("p", { class: "lead" }, t("spectate.lead")),
    form));
  if (!key || !playerId) err.textContent = t("spectate.broken");
}
