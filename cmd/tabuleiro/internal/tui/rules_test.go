package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"tabuleiro.dev/docs/rules"
)

// The rules screen shows the repository's rules documents as text, not
// Markdown: no emphasis or code marks, no table pipes, list items with a
// bullet, paragraphs reflowed within the width, and a comment line (the
// web's "not on the web" mark) is no text.
func TestPlainRules(t *testing.T) {
	t.Parallel()
	md := "# Title\n\nA **Decision** with `e2`\nand [a link](https://x).\n\n<!-- not on the web -->\nTerminal only.\n\n" +
		"- one item that is long enough\n  to continue\n- two\n\n" +
		"| id | pieces | blocking |\n|---|---|---|\n| `classic` | 9 | forbidden |\n| `training` | 9 | — |\n"
	got := plainRules(md, 40)
	want := []string{
		"# Title", "",
		"A Decision with e2 and a link.", "",
		"Terminal only.", "",
		"• one item that is long enough to", "  continue",
		"• two", "",
		"• classic — pieces: 9; blocking:", "  forbidden",
		"• training — pieces: 9",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("plainRules:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, game := range []string{"quoridor", "corners", "banqi"} {
		doc, err := rules.Text(game)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range plainRules(doc, 60) {
			if strings.Contains(l, "**") || strings.Contains(l, "`") || strings.Contains(l, "<!--") || strings.HasPrefix(l, "|") || strings.HasPrefix(l, "- ") || lipgloss.Width(l) > 60 {
				t.Errorf("%s: line %q: Markdown left, or wider than 60", game, l)
			}
		}
	}
}
