// Accounts in the web client: claiming the guest as an account (a
// username and a password, lobby.v1 ClaimAccount), signing in to one from
// another browser (SignIn: the same identity, its games, ratings and
// stats), and the account's sign-ins (ListSessions, SignOut one or all);
// passkeys (WebAuthn): added from the account page
// (Begin/FinishPasskeyRegistration), listed and removed (ListPasskeys,
// RemovePasskey), and signing in with one, usernameless
// (Begin/FinishPasskeySignIn). The lobby's options travel as WebAuthn's
// JSON forms (PublicKeyCredential.parse*OptionsFromJSON, toJSON()).
// The shell (app.ts) passes what it owns, so that this module imports
// nothing of it.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, errorText, Code, ConnectError } from "../api";
import { dateTime, t } from "../i18n";
import type { Identity, Session } from "../session";
import { dataSection } from "./accountdata";
import { clear, h } from "./dom";
import { profileRoute } from "./profile";

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

/** passkeysSupported: the browser has WebAuthn with its JSON forms (every current one). */
export function passkeysSupported(): boolean {
  const pkc = (globalThis as any).PublicKeyCredential;
  return !!pkc && typeof pkc.parseRequestOptionsFromJSON === "function" && typeof pkc.parseCreationOptionsFromJSON === "function";
}

/** passkeySignIn signs in with a passkey the authenticator offers for this site. */
export async function passkeySignIn(): Promise<Identity> {
  const lobby = api().lobby;
  const begin = await lobby.beginPasskeySignIn({});
  const publicKey = (PublicKeyCredential as any).parseRequestOptionsFromJSON(JSON.parse(begin.optionsJson));
  const cred = await navigator.credentials.get({ publicKey }) as PublicKeyCredential | null;
  if (!cred) throw new Error(t("account.passkeyCancelled"));
  const r = await lobby.finishPasskeySignIn({ credentialJson: JSON.stringify((cred as any).toJSON()), device: browserName() });
  return { token: r.token, playerId: r.playerId, name: r.displayName, username: r.username,
    expiresAt: tsMs(r.expiresAt, Date.now() + 86400_000), refreshToken: r.refreshToken };
}

/** addPasskey registers a new passkey of the signed-in account on this device's authenticator. */
export async function addPasskey(token: string): Promise<void> {
  const lobby = api(token).lobby;
  const begin = await lobby.beginPasskeyRegistration({});
  const publicKey = (PublicKeyCredential as any).parseCreationOptionsFromJSON(JSON.parse(begin.optionsJson));
  const cred = await navigator.credentials.create({ publicKey }) as PublicKeyCredential | null;
  if (!cred) throw new Error(t("account.passkeyCancelled"));
  await lobby.finishPasskeyRegistration({ credentialJson: JSON.stringify((cred as any).toJSON()), name: browserName() });
}

/** passkeyError is the text of a failed passkey ceremony: the browser's refusals (cancelled, no passkey) in words of ours. */
function passkeyError(e: unknown): string {
  if (e instanceof DOMException && (e.name === "NotAllowedError" || e.name === "AbortError")) return t("account.passkeyCancelled");
  if (e instanceof DOMException && e.name === "InvalidStateError") return t("account.passkeyHere");
  if (e instanceof DOMException && e.name === "SecurityError") return t("account.passkeyInsecure");
  return errorText(e);
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
  // The guest this browser holds, if any: signing in replaces it, and it
  // may be merged into the account (afterSignIn).
  const held = shell.session.me;
  const guest = held && !held.username ? held : undefined;
  const err = h("p", { class: "error", id: "login-error", role: "alert" });
  const [userField, user] = field("login-username", t("account.username"), { autocomplete: "username", maxlength: 24 });
  const [pwField, pw] = field("login-password", t("account.password"), { type: "password", autocomplete: "current-password", maxlength: 128 });
  const form = h("form", { class: "signin account-form", id: "login-form", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    err.textContent = "";
    try {
      shell.session.me = await passwordSignIn(user.value.trim(), pw.value);
      await afterSignIn(shell, guest, shell.session.me, next);
    } catch (e2) {
      err.textContent = errorText(e2);
      pw.select();
    }
  } }, userField, pwField, h("button", { type: "submit", class: "primary", id: "login-submit" }, t("account.signIn")), err);
  const passkey = passkeysSupported() ? h("p", { class: "passkey-signin" }, h("button", { type: "button", id: "login-passkey", onclick: async () => {
    err.textContent = "";
    try {
      shell.session.me = await passkeySignIn();
      await afterSignIn(shell, guest, shell.session.me, next);
    } catch (e2) {
      err.textContent = passkeyError(e2);
    }
  } }, t("account.passkeySignIn"))) : h("p", { class: "muted" }, t("account.passkeyUnsupported"));
  shell.frame(undefined, h("section", { class: "panel account" },
    h("h1", {}, t("account.signInTitle")),
    h("p", { class: "lead" }, t("account.signInLead")),
    form, passkey,
    h("p", {}, h("a", { href: "#/", id: "login-guest" }, t("account.asGuest")))));
  setTimeout(() => user.focus(), 0);
}

/**
 * afterSignIn goes on to next after a sign-in to the account id, first
 * offering to bring the finished games of guest (the guest this browser
 * held before) into the account (lobby.v1 MergeGuest), when it has any.
 */
async function afterSignIn(shell: Shell, guest: Identity | undefined, id: Identity, next: string): Promise<void> {
  if (!guest || guest.playerId === id.playerId) {
    shell.go(next);
    return;
  }
  let count = 0;
  try {
    count = (await api(id.token).lobby.listGames({ playerId: guest.playerId, pageSize: 100 })).games.length;
  } catch {
    // The guest is unknown here (merged or gone): nothing to offer.
  }
  if (count === 0) {
    shell.go(next);
    return;
  }
  mergeScreen(shell, guest, id, count, next);
}

/** mergeScreen asks whether to bring the guest's count finished games into the account id: yes merges, no leaves them. */
function mergeScreen(shell: Shell, guest: Identity, id: Identity, count: number, next: string): void {
  const err = h("p", { class: "error", id: "merge-error", role: "alert" });
  const panel = h("section", { class: "panel account", id: "merge-offer" });
  const yes = h("button", { class: "primary", id: "merge-yes", onclick: async () => {
    err.textContent = "";
    yes.disabled = true;
    try {
      const r = await api(id.token).lobby.mergeGuest(guest.refreshToken ? { guestRefreshToken: guest.refreshToken } : { guestToken: guest.token });
      clear(panel);
      panel.append(h("h1", {}, t("account.mergeTitle")),
        h("p", { class: "lead", id: "merge-done" }, t("account.mergeDone", { count: r.games })),
        h("button", { class: "primary", id: "merge-continue", onclick: () => shell.go(next) }, t("account.mergeContinue")));
    } catch (e) {
      err.textContent = errorText(e);
      yes.disabled = false;
    }
  } }, t("account.mergeYes")) as HTMLButtonElement;
  panel.append(h("h1", {}, t("account.mergeTitle")),
    h("p", { class: "lead", id: "merge-lead" }, t("account.mergeLead", { count, name: guest.name })),
    h("p", { class: "muted" }, t("account.mergeRatings")),
    h("div", { class: "actions" }, yes, h("button", { id: "merge-no", onclick: () => shell.go(next) }, t("account.mergeNo"))),
    err);
  shell.frame(id, panel);
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
  const keys = h("ul", { class: "passkeys", id: "passkeys" }, h("li", { class: "muted" }, t("loading")));
  const keyErr = h("p", { class: "error", id: "passkeys-error", role: "alert" });
  const loadKeys = async () => {
    try {
      const r = await api(id.token).lobby.listPasskeys({});
      clear(keys);
      if (r.passkeys.length === 0) keys.append(h("li", { class: "muted" }, t("account.noPasskeys")));
      for (const k of r.passkeys) {
        const remove = h("button", { class: "small", onclick: async () => {
          keyErr.textContent = "";
          if (!confirm(t("account.removePasskeyConfirm", { name: k.name || t("account.unknownDevice") }))) return;
          try {
            await api(id.token).lobby.removePasskey({ passkeyId: k.passkeyId });
            void loadKeys();
            void load();
          } catch (e) {
            keyErr.textContent = errorText(e);
          }
        } }, t("account.removePasskey"));
        const used = k.lastUsedAt ? t("account.passkeyUsed", { when: dateTime(tsMs(k.lastUsedAt, 0)) }) : t("account.passkeyNeverUsed");
        keys.append(h("li", { class: "passkey" },
          h("strong", {}, k.name || t("account.unknownDevice")),
          h("span", { class: "muted" }, " · ", t("account.passkeyAdded", { when: dateTime(tsMs(k.createdAt, 0)) }), " · ", used),
          remove));
      }
    } catch (e) {
      keyErr.textContent = errorText(e);
    }
  };
  const add = passkeysSupported() ? h("button", { id: "add-passkey", onclick: async () => {
    keyErr.textContent = "";
    try {
      await addPasskey(id.token);
      void loadKeys();
    } catch (e) {
      keyErr.textContent = passkeyError(e);
    }
  } }, t("account.addPasskey")) : h("p", { class: "muted" }, t("account.passkeyUnsupported"));
  shell.frame(id, h("section", { class: "panel account" },
    h("h1", {}, t("account.title")),
    h("p", { class: "lead", id: "account-username" }, t("account.signedInAs", { username: id.username })),
    id.username ? h("p", {}, h("a", { id: "account-profile", href: profileRoute(id.username) }, t("account.profile"))) : false,
    h("h2", {}, t("account.passkeys")), h("p", { class: "muted" }, t("account.passkeysLead")), keys, add, keyErr,
    passwordForm(shell, id, () => void load()),
    h("h2", {}, t("account.sessions")), list, everywhere, err,
    dataSection(id, () => { shell.session.signOut(); shell.go("#/"); })));
  void load();
  void loadKeys();
}

/** passwordForm changes the account's password (ChangePassword), which signs out its other devices. */
function passwordForm(shell: Shell, id: Identity, changed: () => void): HTMLElement {
  const msg = h("p", { class: "error", id: "password-error", role: "alert" });
  const [curField, cur] = field("current-password", t("account.currentPassword"), { type: "password", autocomplete: "current-password", maxlength: 128 });
  const [newField, next] = field("new-password", t("account.changeNewPassword"), { type: "password", autocomplete: "new-password", minlength: 8, maxlength: 128 });
  return h("form", { class: "account-form", id: "password-form", novalidate: true, onsubmit: async (e: Event) => {
    e.preventDefault();
    msg.textContent = "";
    msg.className = "error";
    if ([...next.value].length < 8) {
      msg.textContent = t("account.passwordShort");
      next.focus();
      return;
    }
    try {
      const r = await api(shell.session.me?.token ?? id.token).lobby.changePassword({ currentPassword: cur.value, newPassword: next.value });
      cur.value = next.value = "";
      msg.className = "ok";
      msg.textContent = t("account.passwordChanged", { count: r.ended });
      changed();
    } catch (e2) {
      msg.textContent = e2 instanceof ConnectError && e2.code === Code.InvalidArgument && e2.rawMessage ? e2.rawMessage : errorText(e2);
    }
  } }, h("h2", {}, t("account.changePassword")), curField, newField,
  h("button", { type: "submit", id: "password-submit" }, t("account.changePassword")), msg);
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
    form,
    passkeysSupported() ? h("p", { class: "muted" }, t("account.claimPasskeyHint")) : "",
    // An account already: signing in offers to bring this guest's games.
    h("p", { class: "muted account-link" }, h("a", { id: "claim-login-link", href: `#/login?next=${encodeURIComponent("#/play")}` }, t("account.haveOneMerge")))));
  setTimeout(() => user.focus(), 0);
}
