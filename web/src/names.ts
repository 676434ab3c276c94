// Display names, checked in the page by the rule the lobby applies
// (services/lobby/internal/lobby ValidateDisplayName): 2 to 24 characters,
// letters of one script, digits, spaces, '-', '_' and '.', at least one
// letter or digit, no space at either end, in plain (NFKC) form. The
// server stays the judge: a name it still refuses shows its reason.

export const nameRule = "Names may use letters, digits, spaces, - _ and . (2 to 24 characters).";

const allowed = /^[\p{L}\p{Nd} _.\-]$/u;
const alnum = /^[\p{L}\p{Nd}]$/u;
// The Hangul fillers count as letters but show as nothing.
const blank = new Set(["\u115F", "\u1160", "\u3164", "\uFFA0"]);

// One script per name, as the server reads scripts: Han, Hiragana,
// Katakana and Hangul are one (CJK); letters of no one script (Common,
// Inherited) are left out. Scripts not named here are not compared (the
// server still is).
const scripts: [string, RegExp][] = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["CJK", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Georgian", /\p{Script=Georgian}/u],
  ["Devanagari", /\p{Script=Devanagari}/u],
  ["Thai", /\p{Script=Thai}/u],
];

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
  if (!chars.length) return `Choose a name. ${nameRule}`;
  if (chars.length < 2) return `A name needs at least 2 characters. ${nameRule}`;
  if (chars.length > 24) return `A name has at most 24 characters (this one has ${chars.length}). ${nameRule}`;
  if (name.trim() !== name) return "A name cannot start or end with a space.";
  if (chars.some((c) => blank.has(c))) return `A name cannot hold characters that show as blank. ${nameRule}`;
  const plain = name.normalize("NFKC");
  if (plain !== name) return `Write the name in plain letters: "${plain}".`;
  const bad = [...new Set(chars.filter((c) => !allowed.test(c)))];
  if (bad.length) {
    const shown = bad.map((c) => (c.trim() ? `"${c}"` : "a blank character")).join(", ");
    return `${shown} cannot be in a name. ${nameRule}`;
  }
  if (!chars.some((c) => alnum.test(c))) return "A name needs at least one letter or digit.";
  let first = "";
  for (const c of chars) {
    const s = scriptOf(c);
    if (!s) continue;
    if (!first) first = s;
    else if (s !== first) return `A name uses the letters of one alphabet: this one mixes ${first} and ${s} letters.`;
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
  return `This name cannot be used (${why}). ${nameRule}`;
}
