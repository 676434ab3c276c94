package corners

import (
	"fmt"
	"slices"
	"strings"

	"tabuleiro.dev/pkg/engine"
)

// This file holds a slow, obviously-correct reference generator for the
// legal plies of C1, C3 and C6.1: plain coordinates, a 2-D array, and a
// recursive depth-first search over every jump chain. It shares nothing
// with the fast generator but the notation.

// refRules is the reference's own copy of C2's table.
var refRules = map[string]struct {
	size   int
	diag   bool
	forbid bool
}{
	"classic-3x3":  {8, false, true},
	"classic-3x4":  {8, false, true},
	"diagonal-3x3": {8, true, false},
	"diagonal-3x4": {8, true, false},
	"triangle":     {8, false, true},
	"square-4x4":   {8, false, true},
	"halma-16x16":  {16, true, false},
	"training":     {8, false, false},
}

// refDirs lists the directions in C1's tie-break order.
var refDirs = [][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}, {1, 1}, {1, -1}, {-1, -1}, {-1, 1}}

type refBoard struct {
	size   int
	ndirs  int
	forbid bool
	cell   [16][16]int // 0 empty, 1 white, 2 black
	mover  int         // 1 or 2
}

func refFrom(variant string, white, black []Square, mover engine.Seat) refBoard {
	r := refRules[variant]
	b := refBoard{size: r.size, ndirs: 4, forbid: r.forbid, mover: int(mover)}
	if r.diag {
		b.ndirs = 8
	}
	for _, q := range white {
		b.cell[q.File()][q.Rank()] = 1
	}
	for _, q := range black {
		b.cell[q.File()][q.Rank()] = 2
	}
	return b
}

func refOf(p Position) refBoard {
	mover := p.ToMove()
	if mover == engine.NoSeat {
		mover = engine.First
	}
	return refFrom(p.Variant().ID, p.Pieces(engine.First), p.Pieces(engine.Second), mover)
}

func (b *refBoard) on(f, r int) bool { return f >= 0 && r >= 0 && f < b.size && r < b.size }

func refName(f, r int) string { return fmt.Sprintf("%c%d", 'a'+f, r+1) }

// blockedWithHelp reports whether the piece at (f, r) has no step and no
// jump while at least one piece of colour helper is among its blockers.
func (b *refBoard) blockedWithHelp(f, r, helper int) bool {
	helped := false
	for _, d := range refDirs[:b.ndirs] {
		nf, nr := f+d[0], r+d[1]
		if !b.on(nf, nr) {
			continue
		}
		if b.cell[nf][nr] == 0 {
			return false
		}
		helped = helped || b.cell[nf][nr] == helper
		lf, lr := nf+d[0], nr+d[1]
		if !b.on(lf, lr) {
			continue
		}
		if b.cell[lf][lr] == 0 {
			return false
		}
		helped = helped || b.cell[lf][lr] == helper
	}
	return helped
}

// legal returns the legal plies in full path notation, sorted.
func (b *refBoard) legal() []string {
	var out []string
	for f := range b.size {
		for r := range b.size {
			if b.cell[f][r] != b.mover {
				continue
			}
			b.cell[f][r] = 0 // the piece is lifted for its whole ply
			ends := map[[2]int][][2]int{}
			var order [][2]int
			for _, d := range refDirs[:b.ndirs] {
				nf, nr := f+d[0], r+d[1]
				if b.on(nf, nr) && b.cell[nf][nr] == 0 {
					ends[[2]int{nf, nr}] = [][2]int{{f, r}, {nf, nr}}
					order = append(order, [2]int{nf, nr})
				}
			}
			// Every chain, depth first in direction order: the first of
			// the shortest chains to an end is C1's canonical one.
			var dfs func(path [][2]int)
			dfs = func(path [][2]int) {
				cf, cr := path[len(path)-1][0], path[len(path)-1][1]
				for _, d := range refDirs[:b.ndirs] {
					mf, mr := cf+d[0], cr+d[1]
					lf, lr := mf+d[0], mr+d[1]
					if !b.on(lf, lr) || b.cell[mf][mr] == 0 || b.cell[lf][lr] != 0 {
						continue
					}
					if slices.Contains(path, [2]int{lf, lr}) {
						continue
					}
					next := append(slices.Clone(path), [2]int{lf, lr})
					end := [2]int{lf, lr}
					if old, ok := ends[end]; !ok || len(next) < len(old) {
						if !ok {
							order = append(order, end)
						}
						ends[end] = next
					}
					dfs(next)
				}
			}
			dfs([][2]int{{f, r}})
			b.cell[f][r] = b.mover
			for _, end := range order {
				path := ends[end]
				if b.forbid && b.wouldBlock(f, r, end[0], end[1]) {
					continue
				}
				parts := make([]string, len(path))
				for i, s := range path {
					parts[i] = refName(s[0], s[1])
				}
				out = append(out, strings.Join(parts, "-"))
			}
		}
	}
	slices.Sort(out)
	return out
}

// wouldBlock applies C6.1 to the ply (f, r) to (tf, tr).
func (b *refBoard) wouldBlock(f, r, tf, tr int) bool {
	b.cell[f][r], b.cell[tf][tr] = 0, b.mover
	defer func() { b.cell[f][r], b.cell[tf][tr] = b.mover, 0 }()
	for of := range b.size {
		for or := range b.size {
			if b.cell[of][or] == 3-b.mover && b.blockedWithHelp(of, or, b.mover) {
				return true
			}
		}
	}
	return false
}

// perft counts the ply sequences of length depth, ignoring the end of the
// game (none can come within the depths tested from a start position).
func (b *refBoard) perft(depth int, solo bool) uint64 {
	if depth == 0 {
		return 1
	}
	var n uint64
	for _, ply := range b.legal() {
		m, err := ParseMove(ply)
		if err != nil {
			panic(err)
		}
		from, to := m.From(), m.To()
		c := *b
		c.cell[from.File()][from.Rank()] = 0
		c.cell[to.File()][to.Rank()] = b.mover
		if !solo {
			c.mover = 3 - b.mover
		}
		n += c.perft(depth-1, solo)
	}
	return n
}

// fastLegal returns the fast generator's plies in notation, sorted.
func fastLegal(p Position) []string {
	b := p.Board()
	var out []string
	for _, m := range b.LegalMoves(nil) {
		out = append(out, m.String())
	}
	slices.Sort(out)
	return out
}
