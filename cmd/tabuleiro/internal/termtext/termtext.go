// Package termtext lays text out for a terminal: words wrapped to a width,
// a rules document's Markdown rendered as plain lines.
package termtext

import (
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"golang.org/x/term"
)

// Wrap breaks each line of s at spaces so that none is wider than w
// cells. A word longer than w (a path in a command line) breaks after its
// last slash that fits, else it is cut hard. No line starts or ends with
// the space it was broken at.
//
// A code span (a command between backquotes) is a phrase: it breaks only
// when it is wider than the line.
func Wrap(s string, w int) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		for lipgloss.Width(line) > w {
			space, codeSpace, slash, hard := -1, -1, -1, 0
			width, code := 0, false
			for i, r := range line {
				if r == '`' {
					code = !code
				}
				if r == ' ' && width <= w {
					if code {
						codeSpace = i
					} else {
						space = i // what comes before it fits
					}
				}
				width += lipgloss.Width(string(r))
				if width > w {
					break
				}
				hard = i + utf8.RuneLen(r)
				if r == '/' {
					slash = hard
				}
			}
			cut := hard
			switch {
			case space > 0:
				cut = space
			case codeSpace > 0:
				cut = codeSpace
			case slash > 0:
				cut = slash
			case cut == 0: // one rune wider than the line
				_, cut = utf8.DecodeRuneInString(line)
			}
			out = append(out, strings.TrimRight(line[:cut], " "))
			line = strings.TrimLeft(line[cut:], " ")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
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

// Rules renders a rules document for the terminal, w columns wide:
// headings stay marked "#" (rulesView styles them), paragraphs are
// reflowed, list items get a bullet and a hanging indent, a table's rows
// become items ("first cell — header: value; …"), and emphasis, code marks
// and link targets go.
func Rules(md string, w int) []string {
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
		for i, l := range strings.Split(Wrap(text, max(10, w-len(indent))), "\n") {
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

// Eprintln writes s and a newline to w (standard error), wrapped to its
// width when w is a terminal; a log or a pipe keeps each message on one
// line, for grep.
func Eprintln(w io.Writer, s string) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		s = Wrap(s, Width(w))
	}
	_, _ = io.WriteString(w, s+"\n")
}

// Width is the width of the terminal w writes to, 80 columns when w is no
// terminal (a pipe, a file).
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// Fprint writes s to w wrapped at spaces to w's width, so that the
// terminal never breaks a word.
func Fprint(w io.Writer, s string) {
	_, _ = io.WriteString(w, Wrap(s, Width(w)))
}

// Fprintln is Fprint and a newline.
func Fprintln(w io.Writer, s string) {
	_, _ = io.WriteString(w, Wrap(s, Width(w))+"\n")
}

// WrapAt is Wrap that breaks a line after a separator (", ", " · ") when
// what comes before one fits, so that the phrases between them stay
// whole; a phrase wider than the line breaks as Wrap breaks it.
func WrapAt(s string, w int, sep string) string {
	mark := strings.TrimRight(sep, " ")
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		for lipgloss.Width(line) > w {
			cut := -1
			for i := 0; ; {
				j := strings.Index(line[i:], sep)
				if j < 0 || lipgloss.Width(line[:i+j+len(mark)]) > w {
					break
				}
				cut = i + j + len(mark)
				i += j + len(sep)
			}
			if cut <= 0 {
				first, _, _ := strings.Cut(Wrap(line, w), "\n")
				cut = len(first)
			}
			out = append(out, strings.TrimRight(line[:cut], " "))
			line = strings.TrimLeft(line[cut:], " ")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Columns lays out labelled values as two columns: each label (padded to
// the widest, after indent) then its value, wrapped at spaces to what is
// left of w, its further lines under its first. A row with an empty label
// is a heading line, wrapped to w.
func Columns(rows [][2]string, indent, w int) string {
	lw := 0
	for _, r := range rows {
		if r[0] != "" {
			lw = max(lw, lipgloss.Width(r[0]))
		}
	}
	col := indent + lw + 1
	var b strings.Builder
	for _, r := range rows {
		if r[0] == "" {
			b.WriteString(Wrap(r[1], w) + "\n")
			continue
		}
		pad := strings.Repeat(" ", indent) + r[0] + strings.Repeat(" ", col-indent-lipgloss.Width(r[0]))
		for i, line := range strings.Split(Wrap(r[1], max(w-col, 20)), "\n") {
			if i > 0 {
				pad = strings.Repeat(" ", col)
			}
			b.WriteString(pad + line + "\n")
		}
	}
	return b.String()
}
