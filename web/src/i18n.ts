// The client's words in the player's language. The catalogs are
// src/locales/<tag>.json (the format of the Go package pkg/platform/i18n:
// a JSON object from a key to a message; {name} placeholders; a plural
// message is an object of CLDR categories chosen by the parameter
// "count"; "language.name" is each language's own name). build.mjs finds
// every catalog file: adding a language is adding a file.
import catalogs from "catalogs:web";

/** Message is a catalog entry: a text, or its CLDR plural forms. */
export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Message>;
export type Params = Record<string, string | number | bigint>;

/** FALLBACK is the language of a key or a language without a message. */
export const FALLBACK = "en";
const LANG_KEY = "tabuleiro.lang";

const all = catalogs as Record<string, Catalog>;

/** languages are the catalogs' tags, English first, then by tag. */
export const languages: string[] = Object.keys(all).sort((a, b) => (a === FALLBACK ? -1 : b === FALLBACK ? 1 : a.localeCompare(b)));

/**
 * match picks the catalog for a list of preferred tags (navigator.languages):
 * the first tag with a catalog, exactly or by its language ("pt-PT" finds
 * "pt-BR", "es-MX" finds "es"), else English.
 */
export function match(preferred: readonly string[], have: readonly string[] = languages): string {
  const lower = have.map((t) => t.toLowerCase());
  for (const p of preferred) {
    const i = lower.indexOf(p.toLowerCase());
    if (i >= 0) return have[i];
    const base = p.toLowerCase().split("-")[0];
    const j = lower.findIndex((t) => t.split("-")[0] === base);
    if (j >= 0) return have[j];
  }
  return FALLBACK;
}

function stored(): string | undefined {
  try {
    const v = typeof localStorage !== "undefined" ? localStorage.getItem(LANG_KEY) : null;
    return v && all[v] ? v : undefined;
  } catch {
    return undefined;
  }
}

function initial(): string {
  const s = stored();
  if (s) return s;
  const nav = typeof navigator !== "undefined" ? (navigator.languages?.length ? navigator.languages : [navigator.language ?? ""]) : [];
  return match(nav.filter(Boolean));
}

let lang = initial();
const listeners: (() => void)[] = [];

/** current is the language the client speaks now. */
export function current(): string {
  return lang;
}

/** setLanguage switches the language, remembers it in this browser and tells the listeners (the page re-renders). */
export function setLanguage(tag: string, remember = true): void {
  if (!all[tag]) return;
  lang = tag;
  if (remember) {
    try { localStorage.setItem(LANG_KEY, tag); } catch { /* private mode: this page only */ }
  }
  applyDocument();
  for (const f of listeners) f();
}

/** onLanguage calls f after each language switch. */
export function onLanguage(f: () => void): void {
  listeners.push(f);
}

/** applyDocument makes <html lang> the client's language. */
export function applyDocument(): void {
  if (typeof document !== "undefined") document.documentElement.lang = lang;
}

const plurals = new Map<string, Intl.PluralRules>();
const numbers = new Map<string, Intl.NumberFormat>();

function pluralRules(tag: string): Intl.PluralRules {
  let r = plurals.get(tag);
  if (!r) plurals.set(tag, (r = new Intl.PluralRules(tag)));
  return r;
}

/** num writes a number as the language does (digit grouping, decimal sign). */
export function num(n: number | bigint, tag = lang, opts?: Intl.NumberFormatOptions): string {
  if (opts) return new Intl.NumberFormat(tag, opts).format(n);
  let f = numbers.get(tag);
  if (!f) numbers.set(tag, (f = new Intl.NumberFormat(tag)));
  return f.format(n);
}

/**
 * render fills a message of a catalog set: the language's message for key
 * (English's when it has none), its plural form by params.count, and each
 * {name} by its parameter (numbers by the language's rules). A key with no
 * message anywhere shows as itself, so that a missing one is seen.
 */
export function render(set: Record<string, Catalog>, tag: string, key: string, params: Params = {}): string {
  let msg = set[tag]?.[key];
  let at = tag;
  if (msg === undefined) {
    msg = set[FALLBACK]?.[key];
    at = FALLBACK;
  }
  if (msg === undefined) return key;
  let text: string;
  if (typeof msg === "string") text = msg;
  else {
    const n = Number(params.count ?? 0);
    let cat = pluralRules(at).select(n);
    // None of a thing is said in the plural ("0 lances"), though CLDR puts
    // Portuguese's 0 with 1.
    if (n === 0 && cat === "one") cat = "other";
    text = msg[cat] ?? msg.other ?? "";
  }
  return text.replace(/\{([A-Za-z0-9_.]+)\}/g, (whole, name: string) => {
    const v = params[name];
    if (v === undefined) return whole;
    return typeof v === "string" ? v : num(v, at);
  });
}

/** t is the client's message for key in the current language. */
export function t(key: string, params?: Params): string {
  return render(all, lang, key, params);
}

/** has reports whether the client's catalogs have key. */
export function has(key: string): boolean {
  return all[FALLBACK]?.[key] !== undefined;
}

/** languageName is a language's own name ("Português (Brasil)"). */
export function languageName(tag: string): string {
  return render(all, tag, "language.name");
}

/** catalogsOf are the bundled catalogs (tests). */
export function catalogsOf(): Record<string, Catalog> {
  return all;
}

/** dateTime writes a moment in the player's locale (date and time). */
export function dateTime(ms: number): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(ms);
}

/** timeOfDay writes a moment's time of day in the player's locale. */
export function timeOfDay(ms: number): string {
  return new Intl.DateTimeFormat(lang, { timeStyle: "medium" }).format(ms);
}
