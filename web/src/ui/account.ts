// Accounts in the web client: claiming the guest as an account (a
// username and a password, lobby.v1 ClaimAccount), signing in to one from
// another browser (SignIn: the same identity, its games, ratings and
// stats), and the account's sign-ins (ListSessions, SignOut one or all).
// The shell (app.ts) passes what it owns, so that this module imports
// nothing of it.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, errorText, Code, ConnectError } from "../api";
import { dateTime, t } from "../i18n";
import type { Identity, Session } from "../session";
import { dataSection } from "./accountdata";
import { clear, h } from "./dom";

/** Shell is what the account screens need of the application shell. */
export interface Shell {
  session: Session;
  frame(id: Identity | undefined, ...content: Node[]): void;
  go(route: string): void;
}

function tsMs(ts: { seconds: bigint; nanos: number } | undefined, fallback: number): number {
  return ts ? timestampMs(ts as any) : fallback;
}

/** field is a labelled input of a form. */
function field(id: string, label: string, attrs: Record<string, string | number | boolean>): [HTMLElement, HTMLInputElement] {
  const input = h("input", { id, name: id, required: true, ...attrs }) as HTMLInputElement;
  return [h("div", { class: "field" }, h("label", { for: id }, label), input), input];
}

/** passwordSignIn signs in to an account and returns its identity. */
export async function passwordSignIn(username: string, password: string): Promise<Identity> {
  const r = await api().lobby.signIn({ username, password, device: browserName() });
  return { token: r.token, playerId: r.playerId, name: r.displayName, username: r.username,
    expiresAt: tsMs(r.expiresAt, Date.now() + 86400_000), refreshToken: r.refreshToken };
}

/** browserName names this sign-in in the account's list: the browser and its system, roughly. */
function browserName(): string {
  const ua = typeof navigator !== "undefined" ? navigator.userAgent : "";
  const browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge" : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "Browser";
  const os = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Windows/.test(ua) ? "Windows" : /Mac OS/.test(ua) ? "macOS" : /Linux/.test(ua) ? "Linux" : "";
  return os ? `${browser} (${os})` : browser;
}

/** loginScreen is "#/login": sign in to an account with its username and password. */
export function loginScreen(shell: Shell, next: string): void {
  const err = h("p", { class: "error", id: "login-error", role: "alert" });
  const [userField, user] = field("login-username", t("account.username"), { autocomplete: "username", maxlength: 24 });
  const [pwField, pw] = field("login-password", t("account.password"), { type: "password", autocomplete: "current-password", maxlength: 128 });
  const form = h("form", { class: "signin account-form", id: "login-form", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    err.textContent = "";
    try {
      shell.session.me = await passwordSignIn(user.value.trim(), pw.value);
      shell.go(next);
    } catch (e2) {
      err.textContent = errorText(e2);
      pw.select();
    }
  } }, userField, pwField, h("button", { type: "submit", class: "primary", id: "login-submit" }, t("account.signIn")), err);
  shell.frame(undefined, h("section", { class: "panel account" },
    h("h1", {}, t("account.signInTitle")),
    h("p", { class: "lead" }, t("account.signInLead")),
    form,
    h("p", {}, h("a", { href: "#/", id: "login-guest" }, t("account.asGuest")))));
  setTimeout(() => user.focus(), 0);
}

/** accountScreen is "#/account": a guest claims an account; an account sees its sign-ins. */
export function accountScreen(shell: Shell, id: Identity): void {
  if (!id.username) {
    claimScreen(shell, id);
    return;
  }
  const list = h("ul", { class: "sessions", id: "sessions" }, h("li", { class: "muted" }, t("loading")));
  const err = h("p", { class: "error", id: "sessions-error", role: "alert" });
  const everywhere = h("button", { class: "danger", id: "sign-out-everywhere", onclick: async () => {
    try {
      await api(id.token).lobby.signOut({ everywhere: true });
    } catch (e) {
      err.textContent = errorText(e);
      return;
    }
    shell.session.signOut();
    shell.go("#/");
  } }, t("account.signOutEverywhere"));
  const load = async () => {
    try {
      const r = await api(id.token).lobby.listSessions({});
      clear(list);
      for (const s of r.sessions) {
        const end = h("button", { class: "small", onclick: async () => {
          try {
            await api(id.token).lobby.signOut({ sessionId: s.sessionId });
            void load();
          } catch (e) {
            err.textContent = errorText(e);
          }
        } }, t("account.signOutThere"));
        list.append(h("li", { class: "session" + (s.current ? " current" : "") },
          h("strong", {}, s.device || t("account.unknownDevice")),
          h("span", { class: "muted" }, " · ", t("account.lastSeen", { when: dateTime(tsMs(s.lastSeenAt, 0)) })),
          s.current ? h("span", { class: "badge" }, t("account.thisDevice")) : end));
      }
    } catch (e) {
      err.textContent = errorText(e);
    }
  };
  shell.frame(id, h("section", { class: "panel account" },
    h("h1", {}, t("account.title")),
    h("p", { class: "lead", id: "account-username" }, t("account.signedInAs", { username: id.username })),
    h("h2", {}, t("account.sessions")), list, everywhere, err,
    dataSection(id, () => { shell.session.signOut(); shell.go("#/"); })));
  void load();
}

function claimScreen(shell: Shell, id: Identity): void {
  const err = h("p", { class: "error", id: "claim-error", role: "alert" });
  const [userField, user] = field("claim-username", t("account.username"), { autocomplete: "username", minlength: 3, maxlength: 24 });
  const [pwField, pw] = field("claim-password", t("account.newPassword"), { type: "password", autocomplete: "new-password", minlength: 8, maxlength: 128 });
  const form = h("form", { class: "account-form", id: "claim-form", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    err.textContent = "";
    if ([...pw.value].length < 8) {
      err.textContent = t("account.passwordShort");
      pw.focus();
      return;
    }
    try {
      const r = await api(id.token).lobby.claimAccount({ username: user.value.trim(), password: pw.value });
      const next: Identity = { ...id, token: r.token, expiresAt: tsMs(r.expiresAt, id.expiresAt), username: r.username };
      shell.session.me = next;
      accountScreen(shell, next);
    } catch (e2) {
      // A malformed username: the server says what is wrong with it.
      err.textContent = e2 instanceof ConnectError && e2.code === Code.InvalidArgument && e2.rawMessage ? e2.rawMessage : errorText(e2);
    }
  } }, userField, h("p", { class: "muted" }, t("account.usernameHint")), pwField,
  h("button", { type: "submit", class: "primary", id: "claim-submit" }, t("account.claim")), err);
  shell.frame(id, h("section", { class: "panel account" },
    h("h1", {}, t("account.claimTitle")),
    h("p", { class: "lead" }, t("account.claimLead", { name: id.name })),
    form));
  setTimeout(() => user.focus(), 0);
}
