package tui

import (
	"strings"

	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
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

// plainRules renders a rules document for the terminal, w columns wide,
// its headings marked "#" (rulesView styles them): termtext.Rules.
func plainRules(md string, w int) []string { return termtext.Rules(md, w) }

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
