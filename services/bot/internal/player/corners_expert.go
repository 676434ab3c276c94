package player

import (
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/corners"
)

// The Corners expert's evaluation (issue 20) adds to the race of Eval the
// piece left furthest behind (a straggler cannot ride its own pieces'
// jumps once they have gone ahead) and, for the side to move, half the
// ground of its best ply, a step or a chain of jumps: the tempo that the
// side to move holds at a leaf, so that a leaf where the side to move has
// a long chain ready scores as the race it is.

// cDirs are the step directions: the four orthogonal ones, then the
// diagonals.
var cDirs = [8][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}, {1, 1}, {1, -1}, {-1, -1}, {-1, 1}}

// bestGain returns the most ground (files plus ranks toward the far
// corner) that one ply of seat s gains on board occ (0 empty, 1 white, 2
// black): a step or a chain of jumps ending on an empty square. It ignores
// C6.1 and C5.2, which rarely forbid the best ply.
func (g *cGame) bestGain(occ *[256]uint8, s engine.Seat) int {
	sign := 1
	if s == engine.Second {
		sign = -1
	}
	mine := uint8(1 + s.Index())
	nd := 4
	if g.diagonal {
		nd = 8
	}
	on := func(f, r int) bool { return f >= 0 && r >= 0 && f < g.size && r < g.size }
	best := -1 << 10
	var queue [64]int
	for q := range 256 {
		if occ[q] != mine {
			continue
		}
		f0, r0 := q&15, q>>4
		for _, d := range cDirs[:nd] {
			f, r := f0+d[0], r0+d[1]
			if on(f, r) && occ[r*16+f] == 0 {
				best = max(best, sign*(d[0]+d[1]))
			}
		}
		// The jumps, breadth first; the piece has left its square.
		var seen [256]bool
		seen[q] = true
		occ[q] = 0
		queue[0] = q
		head, tail := 0, 1
		for head < tail && tail < len(queue) {
			u := queue[head]
			head++
			uf, ur := u&15, u>>4
			for _, d := range cDirs[:nd] {
				mf, mr := uf+d[0], ur+d[1]
				tf, tr := mf+d[0], mr+d[1]
				if !on(tf, tr) || occ[mr*16+mf] == 0 || occ[tr*16+tf] != 0 || seen[tr*16+tf] {
					continue
				}
				t := tr*16 + tf
				seen[t] = true
				best = max(best, sign*(tf+tr-f0-r0))
				if tail < len(queue) {
					queue[tail] = t
					tail++
				}
			}
		}
		occ[q] = mine
	}
	return best
}

// cTempo weighs the expert's tempo term: per square of the best ply's
// gain, about half of what a square of progress is worth in Eval.
const cTempo = 15

// expertEval is the expert's evaluation of b for the side to move.
func (g *cGame) expertEval(b *corners.Board) int {
	score := g.race(b)
	var occ [256]uint8
	for r := range g.size {
		for f := range g.size {
			q, _ := corners.SquareAt(f, r)
			switch b.PieceAt(q) {
			case engine.First:
				occ[q] = 1
			case engine.Second:
				occ[q] = 2
			}
		}
	}
	if gain := g.bestGain(&occ, cMover(b)); gain > 0 {
		score += cTempo * gain
	}
	return score
}
