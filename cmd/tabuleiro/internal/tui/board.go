package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// square is a board square, 0-based: file 0 is "a", rank 0 is "1".
type square struct{ file, rank int }

var noSquare = square{-1, -1}

func (s square) String() string {
	if s == noSquare {
		return ""
	}
	return string(rune('a'+s.file)) + strconv.Itoa(s.rank+1)
}

// parseSquare reads "e1"; files a–p, ranks 1–16.
func parseSquare(s string) (square, bool) {
	if len(s) < 2 || s[0] < 'a' || s[0] > 'p' {
		return noSquare, false
	}
	r, err := strconv.Atoi(s[1:])
	if err != nil || r < 1 || r > 16 {
		return noSquare, false
	}
	return square{int(s[0] - 'a'), r - 1}, true
}

// wall is a Quoridor wall (Q1): its anchor is the square nearest a1 of the
// four it touches. A horizontal wall lies between ranks anchor and
// anchor+1 over files anchor and anchor+1; a vertical one between files
// anchor and anchor+1 over ranks anchor and anchor+1.
type wall struct {
	at         square
	horizontal bool
}

func (w wall) String() string {
	if w.horizontal {
		return w.at.String() + "h"
	}
	return w.at.String() + "v"
}

func wallOf(w *gamev1.QuoridorWall) (wall, bool) {
	sq, ok := parseSquare(w.GetAnchor())
	return wall{at: sq, horizontal: w.GetOrientation() == gamev1.WallOrientation_WALL_ORIENTATION_HORIZONTAL}, ok
}

// Colours. The two seats of each game have their own; goal rows and homes
// are tinted with a dim shade of the seat's colour.
var (
	colFirst      = lipgloss.Color("#FFFFFF")
	colSecond     = lipgloss.Color("#FF8700")
	colBanqiRed   = lipgloss.Color("#FF5F5F")
	colBanqiBlack = lipgloss.Color("#87AFFF")
	tintFirst     = lipgloss.Color("#3A3A3A")
	tintSecond    = lipgloss.Color("#4E3000")
	colWall       = lipgloss.Color("#AF875F")
	colValid      = lipgloss.Color("#5F87FF")
	colInvalid    = lipgloss.Color("#FF0000")
	colDest       = lipgloss.Color("#5FD75F")
	colLoses      = lipgloss.Color("#D75F00") // a target that loses the game at once
	colDim        = lipgloss.Color("#767676")
	colCursorBG   = lipgloss.Color("#005F87")
)

func seatColor(s gamev1.Seat) lipgloss.Color {
	if s == gamev1.Seat_SEAT_SECOND {
		return colSecond
	}
	return colFirst
}

func seatTint(s gamev1.Seat) lipgloss.Color {
	if s == gamev1.Seat_SEAT_SECOND {
		return tintSecond
	}
	return tintFirst
}

// cell is one character of the drawn board with its style.
type cell struct {
	ch    rune
	style lipgloss.Style
}

// canvas is a character grid the board is drawn on.
type canvas struct {
	w, h  int
	cells [][]cell
}

func newCanvas(w, h int) *canvas {
	c := &canvas{w: w, h: h, cells: make([][]cell, h)}
	for y := range c.cells {
		c.cells[y] = make([]cell, w)
		for x := range c.cells[y] {
			c.cells[y][x] = cell{ch: ' ', style: lipgloss.NewStyle()}
		}
	}
	return c
}

func (c *canvas) set(x, y int, ch rune, st lipgloss.Style) {
	if x >= 0 && y >= 0 && x < c.w && y < c.h {
		c.cells[y][x] = cell{ch: ch, style: st}
	}
}

func (c *canvas) text(x, y int, s string, st lipgloss.Style) {
	for i, r := range []rune(s) {
		c.set(x+i, y, r, st)
	}
}

// String renders the grid, one styled run per stretch of equal style.
func (c *canvas) String() string {
	var b strings.Builder
	for y, row := range c.cells {
		if y > 0 {
			b.WriteByte('\n')
		}
		start := 0
		for x := 1; x <= len(row); x++ {
			if x == len(row) || !sameStyle(row[x].style, row[start].style) {
				var run strings.Builder
				for _, cl := range row[start:x] {
					run.WriteRune(cl.ch)
				}
				b.WriteString(row[start].style.Render(run.String()))
				start = x
			}
		}
	}
	return b.String()
}

func sameStyle(a, b lipgloss.Style) bool {
	return a.GetForeground() == b.GetForeground() && a.GetBackground() == b.GetBackground() &&
		a.GetBold() == b.GetBold() && a.GetReverse() == b.GetReverse()
}

// layout maps board squares to canvas positions, with the board turned so
// that the viewer's side is at the bottom when flip is set.
type layout struct {
	files, ranks int
	flip         bool
	cellW        int  // characters per square
	gaps         bool // a gap column and row between squares (Quoridor walls)
	left         int  // columns taken by the rank labels
}

func (l layout) screen(s square) (col, row int) {
	col, row = s.file, l.ranks-1-s.rank
	if l.flip {
		col, row = l.files-1-s.file, s.rank
	}
	return col, row
}

func (l layout) stepX() int {
	if l.gaps {
		return l.cellW + 1
	}
	return l.cellW
}

func (l layout) stepY() int {
	if l.gaps {
		return 2
	}
	return 1
}

// origin is the canvas position of a square's first character.
func (l layout) origin(s square) (x, y int) {
	col, row := l.screen(s)
	return l.left + col*l.stepX(), row * l.stepY()
}

func (l layout) size() (w, h int) {
	return l.left + l.files*l.stepX(), l.ranks*l.stepY() - (l.stepY() - 1) + 1
}

// move turns a screen direction (dx right, dy down) into a board step.
func (l layout) move(s square, dx, dy int) square {
	if l.flip {
		dx, dy = -dx, -dy
	}
	s.file += dx
	s.rank -= dy
	return s
}

func (l layout) labels(c *canvas) {
	for r := range l.ranks {
		_, y := l.origin(square{0, r})
		if l.flip {
			_, y = l.origin(square{l.files - 1, r})
		}
		c.text(0, y, fmt.Sprintf("%2d", r+1), lipgloss.NewStyle().Foreground(colDim))
	}
	_, h := l.size()
	for f := range l.files {
		x, _ := l.origin(square{f, 0})
		c.set(x+l.cellW/2, h-1, rune('a'+f), lipgloss.NewStyle().Foreground(colDim))
	}
}

// square contents drawn by the games.
type mark struct {
	text  string // cellW characters
	style lipgloss.Style
}

func (l layout) put(c *canvas, s square, m mark) {
	x, y := l.origin(s)
	c.text(x, y, m.text, m.style)
}

// pad centres s in width w.
func pad(s string, w int) string {
	n := len([]rune(s))
	if n >= w {
		return s
	}
	left := (w - n) / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", w-n-left)
}

// drawWall draws a Quoridor wall on a layout with gaps.
func (l layout) drawWall(c *canvas, w wall, st lipgloss.Style) {
	a := w.at
	if w.horizontal {
		// Between ranks a.rank and a.rank+1, over files a.file and a.file+1.
		x1, y1 := l.origin(a)
		x2, y2 := l.origin(square{a.file + 1, a.rank + 1})
		y := min(y1, y2) + 1
		for x := min(x1, x2); x < max(x1, x2)+l.cellW; x++ {
			c.set(x, y, '━', st)
		}
		return
	}
	x1, y1 := l.origin(a)
	x2, y2 := l.origin(square{a.file + 1, a.rank + 1})
	x := min(x1, x2) + l.cellW
	for y := min(y1, y2); y <= max(y1, y2); y++ {
		c.set(x, y, '┃', st)
	}
}
