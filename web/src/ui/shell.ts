// The shell every screen shares: the session kept in this browser, the
// signed-in identity (signing in, refreshing its token, the second player
// at one keyboard), navigation, the page frame (header, language and piece
// style, sign-out) and what several screens read (the variants, a rating
// change's text). It imports no screen: screens import it.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, ConnectError, Code } from "../api";
import type { Variant } from "../gen/tabuleiro/game/v1/game_pb";
import { exclusive, needsRefresh, refreshRequest, rotated, Session, type Identity } from "../session";
import { clear, h } from "./dom";
import { current as currentLanguage, languageName, languages, num, setLanguage, t } from "../i18n";
import { pieceStyle, setPieceStyle } from "../pieces";

export const session = new Session(typeof localStorage !== "undefined" ? localStorage : (undefined as never));

/** router opens the screen of the current hash route (the application's router, set by onRoute). */
let router: () => void = () => {};

/** onRoute sets the function go calls to open the current route again. */
export function onRoute(f: () => void): void {
  router = f;
}

/** go navigates to a hash route. */
export function go(route: string): void {
  if (location.hash === route) router();
  else location.hash = route;
}

// ---- identity ----

function tsMs(t: { seconds: bigint; nanos: number } | undefined, fallback: number): number {
  return t ? timestampMs(t as any) : fallback;
}

export async function signIn(name: string): Promise<Identity> {
  const r = await api().lobby.signInGuest({ displayName: name });
  return { token: r.token, playerId: r.playerId, name, expiresAt: tsMs(r.expiresAt, Date.now() + 86400_000), refreshToken: r.refreshToken };
}

/**
 * refreshed refreshes the identity kept by get/set when due, one tab at a time
 * (each refresh token is good once: the second tab reads what the first kept).
 * Undefined when the server refuses it (signed out); on any other failure the
 * identity is kept as it is, to try again later.
 */
async function refreshed(get: () => Identity | undefined, set: (id: Identity) => void): Promise<Identity | undefined> {
  const id = get();
  if (!id || !needsRefresh(id, Date.now())) return id;
  return exclusive("tabuleiro.refresh", async () => {
    const cur = get(); // another tab may have refreshed meanwhile
    if (!cur || !needsRefresh(cur, Date.now())) return cur;
    try {
      const r = await api().lobby.refreshToken(refreshRequest(cur));
      const next = rotated(cur, r, tsMs(r.expiresAt, Date.now() + 86400_000));
      set(next); // the old refresh token is spent: keep the new one at once
      return next;
    } catch (e) {
      return e instanceof ConnectError && (e.code === Code.Unauthenticated || e.code === Code.InvalidArgument) ? undefined : cur;
    }
  });
}

/** me returns the signed-in identity, refreshing its token when due. */
export async function me(): Promise<Identity | undefined> {
  if (!session.me) return undefined;
  const r = await refreshed(() => session.me, (id) => { session.me = id; });
  if (!r) session.signOut();
  return r;
}

/** partner returns the second player of games at one keyboard, signing one in when needed. */
export async function partner(): Promise<Identity> {
  const r = await refreshed(() => session.partner, (id) => { session.partner = id; });
  if (r) return r;
  const base = (session.me?.name ?? t("guest")).slice(0, 20);
  const id = await signIn(`${base} 2`.trim());
  session.partner = id;
  return id;
}

// ---- shell ----

function header(id: Identity | undefined): HTMLElement {
  const link = (href: string, text: string) => h("a", { href, class: location.hash.startsWith(href) ? "active" : "" }, text);
  return h("header", { class: "top" },
    h("a", { class: "brand", href: "#/" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), t("brand")),
    h("nav", { "aria-label": t("nav.label") },
      link("#/play", t("nav.play")), link("#/watch", t("nav.watch")), link("#/history", t("nav.history")), link("#/stats", t("nav.stats")), link("#/rules", t("nav.rules"))),
    h("div", { class: "top-right" }, settingsBox(), id ? whoBox(id) : h("div")),
  );
}

/**
 * settingsBox is the header's language menu (each language by its own
 * name) and the Banqi piece style: both remembered in this browser; a
 * change re-renders the page in place. The piece style is hidden until
 * the page says it draws Banqi pieces (piecesMenu).
 */
function settingsBox(): HTMLElement {
  const lang = h("select", { id: "lang", "aria-label": t("settings.language"), title: t("settings.language"),
    onchange: (e: Event) => setLanguage((e.target as HTMLSelectElement).value) },
    ...languages.map((l) => h("option", { value: l, lang: l, selected: l === currentLanguage() }, languageName(l))));
  const pieces = h("select", { id: "piece-style", "aria-label": t("settings.pieces"), title: t("settings.pieces"),
    onchange: (e: Event) => setPieceStyle((e.target as HTMLSelectElement).value === "letters" ? "letters" : "characters") },
    h("option", { value: "characters", selected: pieceStyle() === "characters" }, t("settings.pieces.characters")),
    h("option", { value: "letters", selected: pieceStyle() === "letters" }, t("settings.pieces.letters")));
  pieces.hidden = true;
  return h("div", { class: "settings" }, lang, pieces);
}

/**
 * whoBox is the header's name and sign-out. A guest identity lives only in
 * this browser: signing out forgets it for good (its games, ratings and
 * stats cannot be reached again), so an in-page question says so first.
 */
function whoBox(id: Identity): HTMLElement {
  const box = h("div", { class: "who" });
  const plain = () => {
    clear(box);
    box.append(h("a", { class: "who-name", id: "who-account", href: "#/account", title: t("who.id", { id: id.playerId }) },
      // An account is shown by its username (its public profile's name).
      id.username ?? id.name),
    h("button", { class: "link", id: "sign-out", onclick: id.username ? signOutHere : ask }, t("who.signOut")));
  };
  // An account signs out of this browser only: it signs in again anywhere.
  const signOutHere = async () => {
    try {
      await api(id.token).lobby.signOut({});
    } catch {
      // Signed out already, or offline: this browser forgets it anyway.
    }
    session.signOut();
    go("#/");
  };
  const ask = () => {
    if (box.querySelector(".signout-confirm")) return;
    box.append(h("div", { class: "signout-confirm", role: "alertdialog", "aria-label": t("who.confirm.label") },
      h("span", {}, t("who.confirm", { name: id.name })),
      h("button", { class: "danger small", id: "sign-out-confirm", onclick: () => { session.signOut(); go("#/"); } }, t("who.confirm.yes")),
      h("button", { class: "small", id: "sign-out-cancel", onclick: plain }, t("who.confirm.no"))));
    box.querySelector<HTMLButtonElement>("#sign-out-cancel")?.focus();
  };
  plain();
  return box;
}

/**
 * piecesMenu shows the header's Banqi piece style where the page draws
 * Banqi pieces (a Banqi game, its replay and review, the lobby's Banqi
 * card), and only there; frame hides it again.
 */
export function piecesMenu(on: boolean): void {
  const el = document.getElementById("piece-style");
  if (el) el.hidden = !on;
}

export function frame(id: Identity | undefined, ...content: Node[]): void {
  const root = document.getElementById("app")!;
  clear(root);
  document.title = t("brand"); // a screen with a title of its own sets it after
  root.append(header(id), h("main", { id: "main" }, ...content));
}

// ---- shared reads ----

let variantsCache: Variant[] | undefined;
export async function variants(): Promise<Variant[]> {
  if (!variantsCache) variantsCache = (await api().lobby.listVariants({})).variants;
  return variantsCache;
}

export function ratingText(before: number, after: number): string {
  const d = Math.round(after) - Math.round(before);
  return t("rating.change", { before: Math.round(before), after: Math.round(after), delta: `${d >= 0 ? "+" : "−"}${num(Math.abs(d))}` });
}
