package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
)

// Fitting the screen to the terminal: its height (fit), its width
// (wrapping at spaces) and the side panel's columns (trunc).

// fit lays the game screen out: the title, the board with its side panel,
// the lines under it (ending in a newline) and the foot, with a blank line
// after the title and after the board. Bubble Tea keeps the terminal's
// last lines, so a screen taller than the terminal (24 lines until it
// says) would push the title off the top: the blank lines go first, then
// the foot. No final newline: Bubble Tea would count an empty last line.
func (m *Model) fit(title, board, under, foot string) string {
	h := m.height
	if h <= 0 {
		h = 24
	}
	lines := func(s string) int { return strings.Count(s, "\n") + 1 }
	gapTitle, gapBoard := "\n", "\n"
	n := lines(title) + lines(board) + strings.Count(under, "\n") + lines(foot) + 2
	for _, gap := range []*string{&gapTitle, &gapBoard} {
		if n > h {
			*gap = ""
			n--
		}
	}
	if n > h {
		foot = ""
		under = strings.TrimSuffix(under, "\n")
	}
	return title + "\n" + gapTitle + board + "\n" + gapBoard + under + foot
}

// wrap breaks s at spaces to the terminal's width (80 until the terminal
// says), so that a long message is read whole instead of cut.
func (m *Model) wrap(s string) string {
	w := m.width
	if w <= 0 {
		w = 80
	}
	return wordwrap(s, w)
}

// hangingWrap wraps s (one line) to the terminal's width, its continuation
// lines indented by indent.
func (m *Model) hangingWrap(s, indent string) string { return m.hangingWrapAt(s, indent, "") }

// hangingWrapAt is hangingWrap breaking after sep where it can (whole
// phrases: termtext.WrapAt); sep "" breaks at any space.
func (m *Model) hangingWrapAt(s, indent, sep string) string {
	w := m.width
	if w <= 0 {
		w = 80
	}
	wrap := wordwrap
	if sep != "" {
		wrap = func(s string, w int) string { return termtext.WrapAt(s, w, sep) }
	}
	first, rest, _ := strings.Cut(wrap(s, w), "\n")
	if rest == "" {
		return first
	}
	rest = strings.ReplaceAll(rest, "\n", " ")
	return first + "\n" + indent + strings.ReplaceAll(wrap(rest, max(w-lipgloss.Width(indent), 10)), "\n", "\n"+indent)
}

// wordwrap breaks each line of s at spaces so that none is wider than w
// cells (termtext.Wrap).
func wordwrap(s string, w int) string { return termtext.Wrap(s, w) }

// trunc cuts s to n runes, ending in "…". A name that ends in a number
// (a second local player, "Convidado KSON 2") keeps the number: it is what
// tells two names apart.
func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	var tail []rune
	if i := strings.LastIndexByte(s, ' '); i > 0 && i < len(s)-1 && strings.Trim(s[i+1:], "0123456789") == "" {
		if t := []rune(s[i:]); len(t) <= n/2 {
			tail = t
		}
	}
	return string(r[:n-1-len(tail)]) + "…" + string(tail)
}
