// The rules of each game, as docs/rules/<game>.md says them (the engine's
// refusals cite their section ids, "walls may not cross (Q3.3)"): a
// refusal's rule number links here, to that section, marked.
import quoridor from "../../../docs/rules/quoridor.md";
import corners from "../../../docs/rules/corners.md";
import banqi from "../../../docs/rules/banqi.md";
import { ruleAnchor, rulesHtml } from "../markdown";
import type { Identity } from "../session";
import { frame } from "./app";
import { h } from "./dom";

const docs: Record<string, { name: string; text: string }> = {
  quoridor: { name: "Quoridor", text: quoridor },
  corners: { name: "Corners", text: corners },
  banqi: { name: "Banqi", text: banqi },
};

/** rulesScreen shows a game's rules, scrolled to section (Q3.2) when one is named. */
export function rulesScreen(id: Identity | undefined, game: string, section: string): void {
  const key = docs[game] ? game : "quoridor";
  const doc = h("article", { class: "rules-doc" });
  doc.innerHTML = rulesHtml(docs[key].text);
  // The document's own title is the page's.
  doc.querySelector("h2")?.remove();
  frame(id, h("section", { class: "panel rules" },
    h("nav", { class: "chips rules-games", "aria-label": "Games" },
      ...Object.entries(docs).map(([g, d]) => h("a", { class: `chip${g === key ? " on" : ""}`, href: `#/rules/${g}` }, d.name))),
    h("h1", {}, `${docs[key].name} rules`),
    doc));
  document.title = `${docs[key].name} rules · Tabuleiro`;
  const target = section ? doc.querySelector<HTMLElement>(`#${ruleAnchor(section)}`) : null;
  if (target) {
    target.classList.add("target");
    target.scrollIntoView({ block: "start" });
  }
}
