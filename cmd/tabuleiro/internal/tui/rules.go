package tui

import (
	"regexp"
	"strings"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// rulesDoc returns the rules document of the game on the board, wrapped
// to the terminal's width, one line per element.
func (m *Model) rulesDoc() []string {
	name := strings.ToLower(strings.TrimPrefix(m.game().String(), "GAME_"))
	t, err := text.Rules(m.p, name)
	if err != nil {
		return []string{err.Error()}
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	return plainRules(t, w)
}

// inlineMarkup is Markdown's emphasis and code marks, and a link's target.
var (
	emphasis = regexp.MustCompile(`\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*`)
	link     = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
)

// plain drops a line's inline Markdown: emphasis, code marks, links'
// targets.
func plain(s string) string {
	s = link.ReplaceAllString(s, "$1")
	s = emphasis.ReplaceAllString(s, "$1$2$3")
	return strings.ReplaceAll(s, "`", "")
}

// plainRules renders a rules document for the terminal, w columns wide:
// headings stay marked "#" (rulesView styles them), paragraphs are
// reflowed, list items get a bullet and a hanging indent, a table's rows
// become items ("first cell — header: value; …"), and emphasis, code marks
// and link targets go.
func plainRules(md string, w int) []string {
	var (
		out    []string
		para   []string
		indent string // the hanging indent of the item in para
		bullet string
		header []string
	)
	flush := func() {
		if len(para) == 0 {
			return
		}
		text := plain(strings.Join(para, " "))
		for i, l := range strings.Split(wordwrap(text, max(10, w-len(indent))), "\n") {
			if i == 0 {
				out = append(out, bullet+l)
			} else {
				out = append(out, indent+l)
			}
		}
		para, indent, bullet = nil, "", ""
	}
	cells := func(l string) []string {
		f := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		for i := range f {
			f[i] = plain(strings.TrimSpace(f[i]))
		}
		return f
	}
	for line := range strings.SplitSeq(strings.TrimRight(md, "\n"), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
			header = nil
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->"):
			// A comment line (the web's "not on the web" mark) is no text.
		case strings.HasPrefix(t, "#"):
			flush()
			out = append(out, "# "+plain(strings.TrimLeft(t, "# ")))
		case strings.HasPrefix(t, "|"):
			flush()
			c := cells(t)
			switch {
			case header == nil:
				header = c
			case strings.Trim(strings.Join(c, ""), "-: ") == "":
				// the header's separator row
			default:
				// "header: value", a header being a noun phrase ("sair de
				// casa até" reads wrong before "sem prazo" without the
				// colon); a cell of a dash is no value (nothing to say).
				var parts []string
				for i := 1; i < len(c) && i < len(header); i++ {
					if v := c[i]; v != "" && v != "—" && v != "-" {
						parts = append(parts, header[i]+": "+v)
					}
				}
				para, bullet, indent = []string{c[0] + " — " + strings.Join(parts, "; ")}, "• ", "  "
				flush()
			}
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			flush()
			para, bullet, indent = []string{t[2:]}, "• ", "  "
		default:
			para = append(para, t)
		}
	}
	flush()
	return out
}

// pageLines is how many lines of the rules fit on the screen.
func (m *Model) pageLines() int {
	h := m.height
	if h <= 0 {
		h = 24
	}
	return max(1, h-2)
}

// rulesView shows the rules of the game being played, scrolled to
// rulesTop.
func (m *Model) rulesView() string {
	lines := m.rulesDoc()
	n := m.pageLines()
	top := min(m.rulesTop, max(0, len(lines)-n))
	end := min(len(lines), top+n)
	var b strings.Builder
	for _, l := range lines[top:end] {
		if strings.HasPrefix(l, "#") {
			l = styleTitle.Render(strings.TrimLeft(l, "# "))
		}
		b.WriteString(l + "\n")
	}
	b.WriteString(styleDim.Render(m.t("rules.foot", "first", top+1, "last", end, "count", len(lines))))
	return b.String()
}
