// Display names, checked in the page by the rule the lobby applies
// (services/lobby/internal/lobby ValidateDisplayName): 2 to 24 characters,
// letters of one script, digits, spaces, '-', '_' and '.', at least one
// letter or digit, no space at either end, in plain (NFKC) form. The
// server stays the judge: a name it still refuses shows its reason.

import { current, t } from "./i18n";

/** nameRule says what a name may hold, in the player's language. */
export function nameRule(): string {
  return t("name.rule");
}

const allowed = /^[\p{L}\p{Nd} _.\-]$/u;
const alnum = /^[\p{L}\p{Nd}]$/u;
// The Hangul fillers count as letters but show as nothing.
const blank = new Set(["\u115F", "\u1160", "\u3164", "\uFFA0"]);

// One script per name, as the server reads scripts: Han, Hiragana,
// Katakana and Hangul are one (CJK); letters of no one script (Common,
// Inherited) are left out. Scripts not named here are not compared (the
// server still is).
// Each script by its ISO 15924 code, named in the player's language by Intl.DisplayNames.
const scripts: [string, RegExp][] = [
  ["Latn", /\p{Script=Latin}/u],
  ["Cyrl", /\p{Script=Cyrillic}/u],
  ["Grek", /\p{Script=Greek}/u],
  ["Hani", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
  ["Arab", /\p{Script=Arabic}/u],
  ["Hebr", /\p{Script=Hebrew}/u],
  ["Armn", /\p{Script=Armenian}/u],
  ["Geor", /\p{Script=Georgian}/u],
  ["Deva", /\p{Script=Devanagari}/u],
  ["Thai", /\p{Script=Thai}/u],
];

/** scriptName is a script's name in the player's language ("Latin", "latino"). */
function scriptName(code: string): string {
  try {
    return new Intl.DisplayNames([current()], { type: "script" }).of(code) ?? code;
  } catch {
    return code;
  }
}

function scriptOf(ch: string): string {
  if (!/\p{L}/u.test(ch)) return "";
  for (const [name, re] of scripts) if (re.test(ch)) return name;
  return "";
}

/**
 * nameProblem says what is wrong with a display name, in a sentence a
 * player reads; undefined when the name follows the rule.
 */
export function nameProblem(name: string): string | undefined {
  const chars = Array.from(name);
  const rule = nameRule();
  if (!chars.length) return t("name.empty", { rule });
  if (chars.length < 2) return t("name.short", { rule });
  if (chars.length > 24) return t("name.long", { count: chars.length, rule });
  if (name.trim() !== name) return t("name.spaces");
  if (chars.some((c) => blank.has(c))) return t("name.blank", { rule });
  const plain = name.normalize("NFKC");
  if (plain !== name) return t("name.plain", { plain });
  const bad = [...new Set(chars.filter((c) => !allowed.test(c)))];
  if (bad.length) {
    const shown = bad.map((c) => (c.trim() ? `"${c}"` : t("name.blankChar"))).join(", ");
    return t("name.bad", { chars: shown, rule });
  }
  if (!chars.some((c) => alnum.test(c))) return t("name.alnum");
  let first = "";
  for (const c of chars) {
    const s = scriptOf(c);
    if (!s) continue;
    if (!first) first = s;
    else if (s !== first) return t("name.mixed", { first: scriptName(first), second: scriptName(s) });
  }
  return undefined;
}

/**
 * nameRefusal is the server's refusal of a name as a sentence: its reason
 * without the field's name ("display_name: …"), after the rule.
 */
export function nameRefusal(reason: string): string {
  const m = /^display_name:\s*(.*)$/s.exec(reason);
  if (!m) return reason;
  const why = m[1].replace(/ at byte \d+/, "").replace(/[.\s]+$/, "");
  return t("name.refused", { why, rule: nameRule() });
}
