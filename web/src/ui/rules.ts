// The rules of each game, as docs/rules/<game>.md says them (the engine's
// refusals cite their section ids, "walls may not cross (Q3.3)"): a
// refusal's rule number links here, to that section, marked. Each
// language's documents are docs/rules/<tag>/<game>.md, with the same
// section ids (build.mjs finds them: a language is added by its files);
// a language without a game's page shows the English one, and says so.
import docs from "catalogs:rules";
import { ruleAnchor, rulesHtml } from "../markdown";
import type { Identity } from "../session";
import { current, FALLBACK, t } from "../i18n";
import { frame } from "./shell";
import { h } from "./dom";

const names: Record<string, string> = { quoridor: "Quoridor", corners: "Corners", banqi: "Banqi" };

/** rulesDoc is a game's rules document in a language, English's when it has none, and the language it is in. */
export function rulesDoc(game: string, lang: string): { text: string; lang: string } | undefined {
  const own = docs[lang]?.[game];
  if (own !== undefined) return { text: own, lang };
  const en = docs[FALLBACK]?.[game];
  return en === undefined ? undefined : { text: en, lang: FALLBACK };
}

/** rulesScreen shows a game's rules, scrolled to section (Q3.2) when one is named. */
export function rulesScreen(id: Identity | undefined, game: string, section: string): void {
  const key = names[game] ? game : "quoridor";
  const d = rulesDoc(key, current())!;
  const doc = h("article", { class: "rules-doc", lang: d.lang });
  doc.innerHTML = rulesHtml(d.text);
  // The document's own title is the page's.
  doc.querySelector("h2")?.remove();
  frame(id, h("section", { class: "panel rules" },
    h("nav", { class: "chips rules-games", "aria-label": t("rules.games") },
      ...Object.entries(names).map(([g, n]) => h("a", { class: `chip${g === key ? " on" : ""}`, href: `#/rules/${g}` }, n))),
    h("h1", {}, t("rules.title", { game: names[key] })),
    d.lang !== current() ? h("p", { class: "muted small", id: "rules-fallback" }, t("rules.fallback")) : false,
    doc));
  document.title = t("title.rules", { game: names[key] });
  const target = section ? doc.querySelector<HTMLElement>(`#${ruleAnchor(section)}`) : null;
  if (target) {
    target.classList.add("target");
    target.scrollIntoView({ block: "start" });
  }
}
