package search

import "slices"

// Toy games for the tests: tic-tac-toe and Nim (deterministic), dice Nim
// (with random plies) and an endless game (for deadlines).

// ttt is a tic-tac-toe position: cells hold 0 (empty), 1 (X) or 2 (O); X
// moves first.
type ttt struct {
	cells [9]int8
	turn  int8 // 1 or 2
}

var tttLines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func tttFrom(s string) ttt {
	p := ttt{turn: 1}
	n := 0
	for i, c := range s {
		switch c {
		case 'x':
			p.cells[i] = 1
			n++
		case 'o':
			p.cells[i] = 2
			n++
		}
	}
	if n%2 == 1 {
		p.turn = 2
	}
	return p
}

type tttGame struct{}

func (tttGame) Moves(p *ttt, dst []int) []int {
	if _, over := (tttGame{}).Terminal(p); over {
		return dst
	}
	for i, c := range p.cells {
		if c == 0 {
			dst = append(dst, i)
		}
	}
	return dst
}

func (tttGame) Play(p *ttt, m int) ttt {
	q := *p
	q.cells[m] = p.turn
	q.turn = 3 - p.turn
	return q
}

func (tttGame) Terminal(p *ttt) (int, bool) {
	for _, l := range tttLines {
		if c := p.cells[l[0]]; c != 0 && c == p.cells[l[1]] && c == p.cells[l[2]] {
			return -Win, true // the player who just moved made the line
		}
	}
	if !slices.Contains(p.cells[:], 0) {
		return 0, true
	}
	return 0, false
}

// Eval counts the lines still open to each side.
func (tttGame) Eval(p *ttt) int {
	score := 0
	for _, l := range tttLines {
		var mine, theirs int
		for _, i := range l {
			switch p.cells[i] {
			case p.turn:
				mine++
			case 3 - p.turn:
				theirs++
			}
		}
		if theirs == 0 {
			score += mine + 1
		}
		if mine == 0 {
			score -= theirs + 1
		}
	}
	return score
}

func (tttGame) Hash(p *ttt) uint64 {
	h := uint64(p.turn)
	for _, c := range p.cells {
		h = h*3 + uint64(c)
	}
	return h * 0x9E3779B97F4A7C15
}

// Order tries the centre, then corners, then edges.
func (tttGame) Order(_ *ttt, moves []int) {
	rank := [9]int{1, 2, 1, 2, 0, 2, 1, 2, 1}
	slices.SortStableFunc(moves, func(a, b int) int { return rank[a] - rank[b] })
}

// nim has three heaps; a move takes any number from one heap; whoever
// takes the last object wins.
type nim struct{ heaps [3]int }

type nimMove struct{ heap, take int }

type nimGame struct{}

func (nimGame) Moves(p *nim, dst []nimMove) []nimMove {
	for h, n := range p.heaps {
		for k := 1; k <= n; k++ {
			dst = append(dst, nimMove{h, k})
		}
	}
	return dst
}

func (nimGame) Play(p *nim, m nimMove) nim {
	q := *p
	q.heaps[m.heap] -= m.take
	return q
}

func (nimGame) Terminal(p *nim) (int, bool) {
	if p.heaps == [3]int{} {
		return -Win, true
	}
	return 0, false
}

func (nimGame) Eval(*nim) int { return 0 }

func (nimGame) Hash(p *nim) uint64 {
	return uint64(p.heaps[0]<<16|p.heaps[1]<<8|p.heaps[2]) * 0x9E3779B97F4A7C15
}

func (nimGame) Order(*nim, []nimMove) {}

// dice is dice Nim: one heap; a player takes 1 or 2, or gambles (move 0):
// a die removes 1, 2 or 3 (1 twice as likely as each other), at most the
// heap. Whoever empties the heap wins.
type dice struct{ heap int }

type diceGame struct{}

func (diceGame) Moves(p *dice, dst []int) []int {
	if p.heap == 0 {
		return dst
	}
	dst = append(dst, 0, 1)
	if p.heap >= 2 {
		dst = append(dst, 2)
	}
	return dst
}

func (diceGame) Play(p *dice, m int) dice { return dice{p.heap - m} }

func (diceGame) Outcomes(p *dice, m int, dst []Outcome[dice]) []Outcome[dice] {
	if m != 0 {
		return dst
	}
	for k, w := range [...]int{1: 2, 2: 1, 3: 1} {
		if k > 0 {
			dst = append(dst, Outcome[dice]{State: dice{max(p.heap-k, 0)}, Weight: w})
		}
	}
	return dst
}

func (diceGame) Terminal(p *dice) (int, bool) {
	if p.heap == 0 {
		return -Win, true
	}
	return 0, false
}

// Eval likes heaps that are not multiples of 3 (the winning heaps of
// plain take-1-or-2), scaled so that a test sees averages.
func (diceGame) Eval(p *dice) int {
	if p.heap%3 == 0 {
		return -90
	}
	return 30 * (p.heap % 3)
}

func (diceGame) Hash(p *dice) uint64 { return uint64(p.heap+1) * 0x9E3779B97F4A7C15 }
func (diceGame) Order(*dice, []int)  {}

// endless never ends: ten moves in every position and a pseudo-random
// evaluation, so only the deadline stops a search.
type endless struct{ n uint64 }

type endlessGame struct{}

func (endlessGame) Moves(_ *endless, dst []int) []int {
	for i := range 10 {
		dst = append(dst, i)
	}
	return dst
}
func (endlessGame) Play(p *endless, m int) endless { return endless{p.n*11 + uint64(m) + 1} }
func (endlessGame) Terminal(*endless) (int, bool)  { return 0, false }
func (endlessGame) Eval(p *endless) int            { return int((p.n*0x9E3779B97F4A7C15)>>54) - 512 }
func (endlessGame) Hash(p *endless) uint64         { return p.n * 0xBF58476D1CE4E5B9 }
func (endlessGame) Order(*endless, []int)          {}

// minimax is the plain (expecti)minimax oracle with the search's score
// conventions; it also counts the positions it visits.
func minimax[S any, M comparable, G Game[S, M]](g G, st S, depth, ply int, nodes *int64) int {
	*nodes++
	if score, over := g.Terminal(&st); over {
		return scoreAt(score, ply)
	}
	if depth == 0 {
		return g.Eval(&st)
	}
	best := -inf
	for _, m := range g.Moves(&st, nil) {
		v := minimaxChild[S, M](g, st, m, depth, ply, nodes)
		best = max(best, v)
	}
	return best
}

func minimaxChild[S any, M comparable, G Game[S, M]](g G, st S, m M, depth, ply int, nodes *int64) int {
	if c, ok := any(g).(Chancy[S, M]); ok {
		if outs := c.Outcomes(&st, m, nil); len(outs) > 0 {
			var sum, w int64
			for _, o := range outs {
				sum += int64(-minimax[S, M](g, o.State, depth-1, ply+1, nodes)) * int64(o.Weight)
				w += int64(o.Weight)
			}
			return int(sum / w)
		}
	}
	return -minimax[S, M](g, g.Play(&st, m), depth-1, ply+1, nodes)
}
