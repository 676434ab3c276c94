package tui

import (
	"fmt"
	"strings"

	"tabuleiro.dev/docs/rules"
)

// rulesDoc returns the rules document of the game on the board, wrapped
// to the terminal's width, one line per element.
func (m *Model) rulesDoc() []string {
	name := strings.ToLower(gameName(m.game()))
	t, err := rules.Text(name)
	if err != nil {
		return []string{err.Error()}
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	return strings.Split(wordwrap(strings.TrimRight(t, "\n"), w), "\n")
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
	b.WriteString(styleDim.Render(fmt.Sprintf("lines %d–%d of %d · j/k, space/b scroll · i or esc returns to the game",
		top+1, end, len(lines))))
	return b.String()
}
