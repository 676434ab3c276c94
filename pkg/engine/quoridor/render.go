package quoridor

import (
	"fmt"
	"strings"
)

// Render draws the board as white sees it, rank 9 at the top, with files
// a–i and ranks 1–9 around it. Pawns are W and B, empty squares dots;
// horizontal walls are "=======" in the groove between two ranks, vertical
// walls "|" in the groove between two files. Two lines follow: the walls
// left for each player, and the side to move (or the outcome once the game
// is over).
func (p Position) Render() string { return p.render(false) }

// RenderFlipped draws the board as black sees it: rank 1 at the top and
// file i on the left (the board turned half a turn), otherwise as Render.
func (p Position) RenderFlipped() string { return p.render(true) }

func (p Position) render(flipped bool) string {
	const width = 40 // "NN |" + 9 cells of 4 columns - 1 + "|"
	var rows [17][width]byte
	for i := range rows {
		for x := range rows[i] {
			rows[i][x] = ' '
		}
		rows[i][3], rows[i][width-1] = '|', '|'
	}
	// Row 0 is rank 9; row 2k is rank 9-k; odd rows are grooves.
	rowOf := func(rank int) int { return 2 * (8 - rank) }
	for s := Square(0); s <= 80; s++ {
		c := byte('.')
		switch s {
		case p.pawns[0]:
			c = 'W'
		case p.pawns[1]:
			c = 'B'
		}
		rows[rowOf(s.Rank())][5+4*s.File()] = c
	}
	for _, w := range p.Walls() {
		f, r := w.At().File(), w.At().Rank()
		if w.Orientation() == Horizontal {
			for x := 4 + 4*f; x <= 10+4*f; x++ {
				rows[rowOf(r)-1][x] = '='
			}
		} else {
			for y := rowOf(r + 1); y <= rowOf(r); y++ {
				rows[y][7+4*f] = '|'
			}
		}
	}
	files := "     a   b   c   d   e   f   g   h   i\n"
	if flipped {
		// Half a turn: the last row first, each row read from its right
		// border to its left (x becomes 42-x between the borders at 3 and 39).
		var turned [17][width]byte
		for i := range rows {
			turned[i] = rows[16-i]
			for x := 3; x < width; x++ {
				turned[i][x] = rows[16-i][42-x]
			}
		}
		rows = turned
		files = "     i   h   g   f   e   d   c   b   a\n"
	}
	var b strings.Builder
	border := "   +" + strings.Repeat("-", width-5) + "+\n"
	b.WriteString(files)
	b.WriteString(border)
	for i := range rows {
		line := rows[i][:]
		if i%2 == 0 {
			rank := 9 - i/2
			if flipped {
				rank = 1 + i/2
			}
			fmt.Fprintf(&b, "%2d %s %d\n", rank, line[3:], rank)
		} else {
			fmt.Fprintf(&b, "   %s\n", line[3:])
		}
	}
	b.WriteString(border)
	b.WriteString(files)
	fmt.Fprintf(&b, "walls left: white %d, black %d\n", p.wallsLeft[0], p.wallsLeft[1])
	if o := p.Outcome(); o.Over() {
		if o.Winner != 0 {
			fmt.Fprintf(&b, "game over: %s wins (%s)\n", seatName(o.Winner), o.Reason)
		} else {
			fmt.Fprintf(&b, "game over: draw (%s)\n", o.Reason)
		}
	} else {
		fmt.Fprintf(&b, "to move: %s\n", seatName(p.ToMove()))
	}
	return b.String()
}
