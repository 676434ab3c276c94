// A few DOM helpers: the client is plain TypeScript, without a framework.
import { t } from "../i18n";

type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | number | boolean | undefined | EventListener>;

/** h builds an element: h("button", {class: "x", onclick: f}, "Label"). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c === false || c === null || c === undefined) continue;
    else el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/**
 * fill puts nodes into a catalog message where it holds the markers
 * U+0000, U+0001, … (the message's placeholders, filled with them):
 * fill(t("room.orCode", {code: "\u0000"}), h("strong", {}, code)).
 */
export function fill(text: string, ...nodes: Node[]): (Node | string)[] {
  const out: (Node | string)[] = [];
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    if (k < nodes.length && k < 32) {
      out.push(text.slice(last, i), nodes[k]);
      last = i + 1;
    }
  }
  out.push(text.slice(last));
  return out.filter((x) => x !== "");
}

/** svg parses SVG markup into an element. */
export function svg(markup: string): Element {
  const t = document.createElement("template");
  t.innerHTML = markup.trim();
  return t.content.firstElementChild!;
}

/** scrollWithin scrolls a list (overflow: auto) so that its item el is in view, moving nothing else on the page. */
export function scrollWithin(list: HTMLElement, el: HTMLElement): void {
  const l = list.getBoundingClientRect();
  const e = el.getBoundingClientRect();
  if (e.top < l.top) list.scrollTop -= l.top - e.top;
  else if (e.bottom > l.bottom) list.scrollTop += e.bottom - l.bottom;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Message is what toast shows: a function that words it in the current
 * language (from catalog keys and their parameters, or a refusal's reason)
 * can be worded again when the language changes (relocalizeToast); a
 * string is already worded and goes away then.
 */
export type Message = string | (() => string);

/** toastWords words the message on screen again: undefined while none shows. */
let toastWords: (() => string) | undefined;

/** hideToast takes the toast away at once: a new page does not keep the last page's message. */
export function hideToast(): void {
  const el = document.getElementById("toast");
  if (!el) return;
  if (toastTimer) clearTimeout(toastTimer);
  toastWords = undefined;
  el.textContent = "";
  el.className = "toast";
  el.parentElement?.classList.remove("toasting");
}

/**
 * relocalizeToast words the message on screen in the language just chosen:
 * again from its keys when it was given as a function, else (a string in
 * the old language) it goes away.
 */
export function relocalizeToast(): void {
  const el = document.getElementById("toast");
  if (!el || !el.classList.contains("show")) return;
  if (!toastWords) {
    hideToast();
    return;
  }
  clear(el);
  append(el, [withRuleLinks(toastWords())]);
}

/** RULE_REF is a rule's section id cited in a message: "(Q3.2)", "(C3.1)", "(B4)". */
const RULE_REF = /\(([QCB]\d+(?:\.\d+)*)\)/g;
const RULE_GAMES: Record<string, string> = { Q: "quoridor", C: "corners", B: "banqi" };

/** ruleHref is the rules page of a section id: #/rules/quoridor/Q3.2. */
export function ruleHref(id: string): string {
  return `#/rules/${RULE_GAMES[id[0]] ?? "quoridor"}/${id}`;
}

/**
 * withRuleLinks turns each rule number in a message into a link to that
 * rule (opened in a new tab: a game in progress stays where it is).
 */
export function withRuleLinks(text: string): (Node | string)[] {
  const out: (Node | string)[] = [];
  let last = 0;
  for (const m of text.matchAll(RULE_REF)) {
    out.push(text.slice(last, m.index! + 1));
    out.push(h("a", { class: "rule-ref", href: ruleHref(m[1]), target: "_blank", rel: "noopener", title: t("rule.link", { id: m[1] }) }, m[1]));
    last = m.index! + m[0].length - 1;
  }
  out.push(text.slice(last));
  return out;
}

/**
 * clearError hides the message on screen if it is an error: a refused ply
 * is stale once a later ply of the same player is accepted.
 */
export function clearError(): void {
  const el = document.getElementById("toast");
  if (!el || !el.classList.contains("error") || !el.classList.contains("show")) return;
  if (toastTimer) clearTimeout(toastTimer);
  el.classList.remove("show");
  el.parentElement?.classList.remove("toasting");
}

/**
 * toast shows a short message: in the page's message slot when it has one
 * (the game screen's, where the hint is, so that it covers neither the
 * board nor its controls), else at the bottom of the screen. Rule numbers
 * in it link to the rules.
 */
export function toast(message: Message, kind: "info" | "error" = "info"): void {
  const words = typeof message === "function" ? message : undefined;
  const text = words ? words() : (message as string);
  let el = document.getElementById("toast");
  if (!el) {
    el = h("div", { id: "toast", role: "status", "aria-live": "polite" });
    document.body.appendChild(el);
  }
  const slot = document.querySelector<HTMLElement>("[data-toast-slot]");
  const host = slot ?? document.body;
  if (el.parentElement !== host) {
    el.parentElement?.classList.remove("toasting");
    host.appendChild(el);
  }
  clear(el);
  append(el, [withRuleLinks(text)]);
  toastWords = words;
  el.className = `toast show ${kind}${slot ? " inline" : ""}`;
  slot?.classList.add("toasting");
  if (toastTimer) clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el!.classList.remove("show");
    el!.parentElement?.classList.remove("toasting");
  }, kind === "error" ? 6000 : 3000);
}

/**
 * passwordInput is a password field (type=password: the screen does not
 * show it to whoever looks on) with a button that shows it and hides it
 * again, for the player to check what they typed.
 */
export function passwordInput(attrs: Attrs): { el: HTMLElement; input: HTMLInputElement } {
  const input = h("input", { autocomplete: "off", ...attrs, type: "password" }) as HTMLInputElement;
  const toggle = h("button", { type: "button", class: "small password-toggle", "aria-pressed": "false", onclick: () => {
    const show = input.type === "password";
    input.type = show ? "text" : "password";
    toggle.setAttribute("aria-pressed", String(show));
    toggle.textContent = show ? t("password.hide") : t("password.show");
  } }, t("password.show"));
  return { el: h("span", { class: "password-field" }, input, toggle), input };
}
