// The rules documents (docs/rules/*.md, bundled as text) as HTML, rendered
// by marked; each rule's heading is anchored by its section id and one
// level below the page's own title. Pure, so that the unit tests can check
// it without a page.
import { Marked } from "marked";

/** SECTION is a heading's section id: "### Q3.2 No overlap" → Q3.2. */
const SECTION = /^([QCB]\d+(?:\.\d+)*)\b/;

/** ruleAnchor is the element id of a section's heading. */
export function ruleAnchor(id: string): string {
  return `rule-${id.replace(/\./g, "-")}`;
}

const marked = new Marked({
  gfm: true,
  renderer: {
    heading({ tokens, depth, text }) {
      const level = Math.min(depth + 1, 6); // the page's own title is the h1
      const id = SECTION.exec(text)?.[1];
      const attrs = id ? ` id="${ruleAnchor(id)}" data-rule="${id}"` : "";
      return `<h${level}${attrs}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
  },
});

/**
 * NOT_ON_THE_WEB is a paragraph the documents mark for developers and the
 * terminal (the engine's package, the `tabuleiro rules show` command): a
 * "<!-- not on the web -->" line and the lines after it up to a blank line.
 */
const NOT_ON_THE_WEB = /^<!-- not on the web -->[ \t]*\n(?:[ \t]*\S.*(?:\n|$))*/gm;

/** rulesHtml renders a rules document for players, without its paragraphs marked not for the web. */
export function rulesHtml(md: string): string {
  return marked.parse(md.replace(NOT_ON_THE_WEB, ""), { async: false });
}
