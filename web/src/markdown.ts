// The rules documents (docs/rules/*.md, bundled as text) as HTML: the
// little Markdown they use (headings, paragraphs, lists, tables, `code`
// and **bold**), each rule's heading anchored by its section id. Pure, so
// that the unit tests can check it without a page.

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

function inline(s: string): string {
  return esc(s).replace(/`([^`]+)`/g, "<code>$1</code>").replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/** SECTION is a heading's section id: "### Q3.2 No overlap" → Q3.2. */
const SECTION = /^([QCB]\d+(?:\.\d+)*)\b/;

/** ruleAnchor is the element id of a section's heading. */
export function ruleAnchor(id: string): string {
  return `rule-${id.replace(/\./g, "-")}`;
}

/** rulesHtml renders a rules document. */
export function rulesHtml(md: string): string {
  const out: string[] = [];
  let para: string[] = [];
  let list: string[] | undefined;
  let table: string[][] | undefined;
  const flush = () => {
    if (para.length) out.push(`<p>${inline(para.join(" "))}</p>`);
    para = [];
    if (list) out.push(`<ul>${list.map((i) => `<li>${inline(i)}</li>`).join("")}</ul>`);
    list = undefined;
    if (table) {
      const [head, , ...rows] = table;
      out.push(`<table><thead><tr>${head.map((c) => `<th scope="col">${inline(c)}</th>`).join("")}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`).join("")}</tbody></table>`);
    }
    table = undefined;
  };
  for (const line of md.split("\n")) {
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading) {
      flush();
      const level = Math.min(heading[1].length + 1, 6); // the page's own title is the h1
      const id = SECTION.exec(heading[2])?.[1];
      out.push(`<h${level}${id ? ` id="${ruleAnchor(id)}" data-rule="${id}"` : ""}>${inline(heading[2])}</h${level}>`);
    } else if (line.startsWith("|")) {
      if (!table) flush();
      table ??= [];
      table.push(line.replace(/^\||\|$/g, "").split("|").map((c) => c.trim()));
    } else if (/^- /.test(line)) {
      if (!list) flush();
      list ??= [];
      list.push(line.slice(2));
    } else if (line.trim() === "") {
      flush();
    } else if (list && /^\s/.test(line)) {
      list[list.length - 1] += " " + line.trim();
    } else {
      if (list || table) flush();
      para.push(line.trim());
    }
  }
  flush();
  return out.join("\n");
}
