// The lint behind the i18n tests: user-facing text in web/src is written
// only in the catalogs. It reads the TypeScript syntax tree and reports a
// string literal (or a template's literal text) with a word in it, where
// the page shows it: a child of the DOM helper h(), a text attribute given
// to it (title, aria-label, placeholder, alt), an assignment to
// textContent / innerText / title / placeholder, setAttribute of a text
// attribute, append / prepend / createTextNode, alert / confirm / prompt,
// and toast. Marks ("·", "—", "×3"), numbers and notation pass.
import ts from "typescript";

const TEXT_ATTRS = new Set(["title", "aria-label", "placeholder", "alt", "aria-description", "aria-roledescription", "label"]);
const TEXT_PROPS = new Set(["textContent", "innerText", "title", "placeholder", "ariaLabel", "alt"]);
const TEXT_CALLS = new Set(["alert", "confirm", "prompt", "toast", "createTextNode", "append", "prepend"]);
/** WORD is what makes a literal text: two letters in a row. */
const WORD = /\p{L}{2,}/u;

/** literals are the string literals an expression may evaluate to (through ?:, &&, ||, +, arrays, parentheses). */
function literals(e: ts.Expression): ts.Node[] {
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isTemplateExpression(e)) return [e];
  if (ts.isParenthesizedExpression(e)) return literals(e.expression);
  if (ts.isConditionalExpression(e)) return [...literals(e.whenTrue), ...literals(e.whenFalse)];
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(e.operatorToken.kind)) return literals(e.right).concat(e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken ? [] : literals(e.left));
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return [...literals(e.left), ...literals(e.right)];
  if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((x) => (ts.isSpreadElement(x) ? [] : literals(x)));
  return [];
}

function textOf(n: ts.Node): string {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateExpression(n)) return [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(" ");
  return "";
}

const nameOf = (n: ts.Node): string => (ts.isIdentifier(n) || ts.isStringLiteral(n) ? n.text : ts.isPropertyAccessExpression(n) ? n.name.text : "");

/** rulesLint lists each user-facing literal of the sources: "file:line: text". */
export function rulesLint(files: { file: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const report = (e: ts.Expression) => {
      for (const l of literals(e)) {
        const s = textOf(l);
        if (WORD.test(s)) out.push(`${file}:${sf.getLineAndCharacterOfPosition(l.getStart()).line + 1}: ${JSON.stringify(s)}`);
      }
    };
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n)) {
        const callee = nameOf(n.expression);
        if (callee === "h" && ts.isIdentifier(n.expression)) {
          const attrs = n.arguments[1];
          if (attrs && ts.isObjectLiteralExpression(attrs)) {
            for (const p of attrs.properties) if (ts.isPropertyAssignment(p) && TEXT_ATTRS.has(nameOf(p.name))) report(p.initializer);
          }
          n.arguments.slice(2).forEach(report);
        } else if (callee === "setAttribute" && n.arguments[0] && ts.isStringLiteral(n.arguments[0]) && TEXT_ATTRS.has(n.arguments[0].text) && n.arguments[1]) {
          report(n.arguments[1]);
        } else if (TEXT_CALLS.has(callee)) {
          // toast's second argument is its kind, not text.
          (callee === "toast" ? n.arguments.slice(0, 1) : n.arguments).forEach(report);
        }
      }
      if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && TEXT_PROPS.has(n.left.name.text)) {
        report(n.right);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** usedKeys are the catalog keys the sources name in t("…"). */
export function usedKeys(files: { text: string }[]): string[] {
  const keys = new Set<string>();
  for (const { text } of files) for (const m of text.matchAll(/\bt\("([^"]+)"/g)) keys.add(m[1]);
  return [...keys].sort();
}

/**
 * unusedKeys are the catalog keys no source names: as a string literal
 * ("reason.goal", t("x")), through its parent key passed on to a function
 * that adds the last part (about("outcome.time", seat) for
 * "outcome.time.you"), or by a template t(`piece.${colour}.${kind}`).
 */
export function unusedKeys(keys: string[], files: { text: string }[]): string[] {
  const all = files.map((f) => f.text).join("\n");
  const strings = new Set([...all.matchAll(/"([^"\\\n]*)"/g)].map((m) => m[1]));
  const templates = [...all.matchAll(/`([a-z][A-Za-z]*\.[^`]*)`/g)].map((m) => m[1]).filter((s) => !s.startsWith("${"))
    .map((s) => new RegExp(`^${s.split(/\$\{[^}]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^.]+")}$`));
  return keys.filter((k) => !strings.has(k) && !strings.has(k.replace(/\.[^.]+$/, "")) && !templates.some((r) => r.test(k)));
}
