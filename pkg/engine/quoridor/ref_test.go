package quoridor

import (
	"fmt"
	"slices"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// The slow reference generator: plain coordinates, a list of walls, a grid
// breadth-first search. It shares no code with the fast generator except
// the notation and the accessors used to copy a position into it. It reads
// RULES.md Q2 and Q3 as literally as it can.

type refWall struct {
	f, r int // anchor: the square nearest a1 of the four it touches, 0-based
	h    bool
}

type refPos struct {
	pawn  [2][2]int // [side]{file, rank}, 0-based; side 0 is white
	left  [2]int
	walls []refWall
	turn  int
}

func refFrom(p Position) refPos {
	var r refPos
	for i, s := range [2]engine.Seat{engine.First, engine.Second} {
		sq := p.Pawn(s)
		r.pawn[i] = [2]int{sq.File(), sq.Rank()}
		r.left[i] = p.WallsLeft(s)
	}
	for _, w := range p.Walls() {
		r.walls = append(r.walls, refWall{f: w.At().File(), r: w.At().Rank(), h: w.Orientation() == Horizontal})
	}
	r.turn = p.Plies() % 2
	return r
}

func onBoard(f, r int) bool { return f >= 0 && f < 9 && r >= 0 && r < 9 }

// wallBetween reports whether a wall lies between the adjacent squares
// (f1, r1) and (f2, r2).
func (p refPos) wallBetween(f1, r1, f2, r2 int) bool {
	for _, w := range p.walls {
		if w.h {
			// Between ranks w.r and w.r+1, across files w.f and w.f+1.
			if f1 == f2 && (f1 == w.f || f1 == w.f+1) && min(r1, r2) == w.r && max(r1, r2) == w.r+1 {
				return true
			}
		} else {
			// Between files w.f and w.f+1, across ranks w.r and w.r+1.
			if r1 == r2 && (r1 == w.r || r1 == w.r+1) && min(f1, f2) == w.f && max(f1, f2) == w.f+1 {
				return true
			}
		}
	}
	return false
}

func (p refPos) canStep(f1, r1, f2, r2 int) bool {
	return onBoard(f2, r2) && !p.wallBetween(f1, r1, f2, r2)
}

var refDirs = [4][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}}

type refGrid [9][9][4]bool // open[f][r][dir]: the step from (f, r) in dir is on the board and crosses no wall

// grid lists, for each square and direction, whether that step is open.
func (p refPos) grid() *refGrid {
	var open refGrid
	for f := range 9 {
		for r := range 9 {
			for i, d := range refDirs {
				open[f][r][i] = p.canStep(f, r, f+d[0], r+d[1])
			}
		}
	}
	return &open
}

// hasPath runs a breadth-first search from side's pawn to its goal rank,
// pawns not being obstacles (Q3.4).
func (p refPos) hasPath(side int) bool { return p.hasPathIn(side, p.grid()) }

func (p refPos) hasPathIn(side int, open *refGrid) bool {
	goal := 8
	if side == 1 {
		goal = 0
	}
	var seen [9][9]bool
	var queue [81][2]int
	queue[0] = p.pawn[side]
	seen[p.pawn[side][0]][p.pawn[side][1]] = true
	for head, tail := 0, 1; head < tail; head++ {
		c := queue[head]
		if c[1] == goal {
			return true
		}
		for i, d := range refDirs {
			f, r := c[0]+d[0], c[1]+d[1]
			if open[c[0]][c[1]][i] && !seen[f][r] {
				seen[f][r] = true
				queue[tail] = [2]int{f, r}
				tail++
			}
		}
	}
	return false
}

func (p refPos) won() bool { return p.pawn[0][1] == 8 || p.pawn[1][1] == 0 }

// pawnMoves follows Q2 step by step.
func (p refPos) pawnMoves() [][2]int {
	me, op := p.pawn[p.turn], p.pawn[1-p.turn]
	var out [][2]int
	for _, d := range refDirs {
		f, r := me[0]+d[0], me[1]+d[1]
		if !p.canStep(me[0], me[1], f, r) {
			continue // Q2.1
		}
		if [2]int{f, r} != op {
			out = append(out, [2]int{f, r})
			continue
		}
		jf, jr := op[0]+d[0], op[1]+d[1]
		if p.canStep(op[0], op[1], jf, jr) {
			out = append(out, [2]int{jf, jr}) // Q2.2
			continue
		}
		for _, s := range [2][2]int{{d[1], d[0]}, {-d[1], -d[0]}} { // Q2.3
			sf, sr := op[0]+s[0], op[1]+s[1]
			if p.canStep(op[0], op[1], sf, sr) {
				out = append(out, [2]int{sf, sr})
			}
		}
	}
	return out
}

// wallOK follows Q3. open is p.grid().
func (p refPos) wallOK(w refWall, open *refGrid) bool {
	if p.left[p.turn] == 0 {
		return false // Q3.1
	}
	for _, e := range p.walls {
		switch {
		case e.h && w.h && e.r == w.r && e.f-w.f <= 1 && w.f-e.f <= 1:
			return false // Q3.2
		case !e.h && !w.h && e.f == w.f && e.r-w.r <= 1 && w.r-e.r <= 1:
			return false // Q3.2
		case e.h != w.h && e.f == w.f && e.r == w.r:
			return false // Q3.3
		}
	}
	// Q3.4: close the steps the new wall lies across (all between the four
	// squares it touches, Q1), then search.
	only := refPos{walls: []refWall{w}}
	after := *open
	for f := w.f; f <= w.f+1; f++ {
		for r := w.r; r <= w.r+1; r++ {
			for i, d := range refDirs {
				if only.wallBetween(f, r, f+d[0], r+d[1]) {
					after[f][r][i] = false
				}
			}
		}
	}
	return p.hasPathIn(0, &after) && p.hasPathIn(1, &after)
}

func refMoveString(f, r int) string { return fmt.Sprintf("%c%d", 'a'+f, r+1) }

func (w refWall) String() string {
	o := "v"
	if w.h {
		o = "h"
	}
	return refMoveString(w.f, w.r) + o
}

// legal returns the legal plies in notation, sorted as strings.
func (p refPos) legal() []string {
	if p.won() {
		return nil
	}
	var out []string
	for _, s := range p.pawnMoves() {
		out = append(out, refMoveString(s[0], s[1]))
	}
	open := p.grid()
	for f := range 8 {
		for r := range 8 {
			for _, h := range []bool{true, false} {
				if w := (refWall{f: f, r: r, h: h}); p.wallOK(w, open) {
					out = append(out, w.String())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// play applies a ply given in notation, unchecked.
func (p refPos) play(s string) refPos {
	q := p
	if len(s) == 3 {
		q.walls = append(slices.Clip(p.walls), refWall{f: int(s[0] - 'a'), r: int(s[1] - '1'), h: s[2] == 'h'})
		q.left[p.turn]--
	} else {
		q.pawn[p.turn] = [2]int{int(s[0] - 'a'), int(s[1] - '1')}
	}
	q.turn = 1 - p.turn
	return q
}

func (p refPos) perft(depth int) uint64 {
	if depth == 0 || p.won() {
		return 1
	}
	var n uint64
	for _, m := range p.legal() {
		n += p.play(m).perft(depth - 1)
	}
	return n
}

// sortedStrings returns the plies in notation, sorted as strings.
func sortedStrings(ms []Move) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	slices.Sort(out)
	return out
}

// compareWithRef checks that the fast and the reference generators list
// the same plies at p and, depth-1 plies deeper, at every position below.
func compareWithRef(t *testing.T, p Position, depth int) {
	t.Helper()
	got := sortedStrings(p.LegalMoves(nil))
	want := refFrom(p).legal()
	if !slices.Equal(got, want) {
		t.Fatalf("position %s: legal plies differ\nfast: %v\nref:  %v", p.Encode(), got, want)
	}
	if depth <= 1 {
		return
	}
	for _, m := range p.LegalMoves(nil) {
		compareWithRef(t, p.apply(m), depth-1)
	}
}
