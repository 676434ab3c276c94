package player

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/services/bot/internal/search"
)

// cGame is the search adapter for Corners over the fast Board. Its
// evaluation is the race to the opposite corner (C1): each side's summed
// distance to the far corner, pieces already in the target home, and the
// leave-home deadline (C5.1).
type cGame struct {
	simple   bool // easy's heuristic: distances only
	diagonal bool // diagonal steps: distance is the larger of the two
	size     int
	deadline int          // move number of C5.1; 0 for none
	blocking bool         // blocking is allowed (C6.1)
	home     [2][256]bool // white's and black's home squares
	// toTarget is each square's distance to the nearest square of the
	// home that seat i must fill (the opponent's).
	toTarget [2][256]int
	// expert turns on the expert's refinements: below the root (ply
	// count root) it searches only the plies that lose no ground when
	// there are any, and its evaluation penalises the piece left furthest
	// behind.
	expert bool
	root   int
}

func newCGame(b corners.Board, simple bool) *cGame {
	g := &cGame{
		simple:   simple,
		diagonal: strings.HasPrefix(b.Variant().ID, "diagonal") || strings.HasPrefix(b.Variant().ID, "halma"),
		size:     b.Size(),
		deadline: b.Deadline(),
		blocking: b.BlockingAllowed(),
	}
	for i, s := range []engine.Seat{engine.First, engine.Second} {
		for _, q := range b.Home(s) {
			g.home[i][q] = true
		}
	}
	for i, s := range []engine.Seat{engine.Second, engine.First} {
		targets := b.Home(s)
		for f := range g.size {
			for r := range g.size {
				q, ok := corners.SquareAt(f, r)
				if !ok {
					continue
				}
				d := 1 << 10
				for _, t := range targets {
					d = min(d, g.distance(f-t.File(), r-t.Rank()))
				}
				g.toTarget[i][q] = d
			}
		}
	}
	return g
}

func (g *cGame) distance(df, dr int) int {
	df, dr = abs(df), abs(dr)
	if g.diagonal {
		return max(df, dr)
	}
	return df + dr
}

func (g *cGame) Moves(b *corners.Board, dst []corners.Move) []corners.Move {
	start := len(dst)
	dst = b.LegalMoves(dst)
	if !g.expert || b.Plies() == g.root {
		return dst
	}
	// Below the root a retreat is rarely best: keep the plies that gain or
	// keep ground, if any (a race is decided by the plies gained).
	sign := 1
	if cMover(b) == engine.Second {
		sign = -1
	}
	n := start
	for _, m := range dst[start:] {
		f, t := m.From(), m.To()
		if sign*(t.File()+t.Rank()-f.File()-f.Rank()) >= 0 {
			dst[n] = m
			n++
		}
	}
	if n == start {
		return dst
	}
	return dst[:n]
}

func (*cGame) Play(b *corners.Board, m corners.Move) corners.Board {
	next, _, err := b.Play(m)
	if err != nil {
		panic("player: listed Corners ply does not play: " + err.Error())
	}
	return next
}

// mover is the seat whose turn it is by the ply count, also once the game
// is over (white plays the even plies).
func cMover(b *corners.Board) engine.Seat {
	if b.Plies()%2 == 0 {
		return engine.First
	}
	return engine.Second
}

func (*cGame) Terminal(b *corners.Board) (int, bool) {
	o := b.Outcome()
	switch o.Result {
	case engine.Win:
		if o.Winner == cMover(b) {
			return search.Win, true // C4, C5.1: decided after the opponent's ply
		}
		return -search.Win, true
	case engine.Draw:
		return 0, true
	}
	return 0, false
}

// side returns, for seat s, the summed distance of its pieces to the far
// corner and to the target home, the number in the target home and the
// number still at home.
func (g *cGame) side(b *corners.Board, s engine.Seat) (corner, toTarget, arrived, atHome, last int) {
	i := s.Index()
	for _, q := range b.Pieces(s) {
		df, dr := q.File(), q.Rank()
		if s == engine.First {
			df, dr = g.size-1-df, g.size-1-dr
		}
		corner += g.distance(df, dr)
		toTarget += g.toTarget[i][q]
		last = max(last, g.toTarget[i][q])
		if g.home[1-i][q] {
			arrived++
		}
		if g.home[i][q] {
			atHome++
		}
	}
	return corner, toTarget, arrived, atHome, last
}

// cStraggler weighs the expert's straggler term, per square.
const cStraggler = 8

func (g *cGame) Eval(b *corners.Board) int {
	if g.expert {
		return g.expertEval(b)
	}
	return g.race(b)
}

// race is the evaluation of the race for the side to move.
func (g *cGame) race(b *corners.Board) int {
	me := cMover(b)
	cMe, dMe, inMe, homeMe, lastMe := g.side(b, me)
	cOpp, dOpp, inOpp, homeOpp, lastOpp := g.side(b, me.Other())
	score := 10*(cOpp-cMe) + 10
	if g.expert {
		score -= 10 // the expert's tempo term replaces the flat one
	}
	if g.simple {
		return score
	}
	// Reaching the target home counts more than nearing the corner, so
	// that the last pieces do not wander beside a home with room in it.
	score += 25*(dOpp-dMe) + 15*(inMe-inOpp)
	if g.expert {
		// A straggler cannot be carried by jumps over its own pieces once
		// they have gone ahead: the furthest piece counts again.
		score += cStraggler * (lastOpp - lastMe)
	}
	if g.deadline > 0 {
		// Pieces still at home weigh more as the deadline nears (C5.1).
		left := max(1, g.deadline-b.MoveNumber())
		weight := 10 + 400/left
		if g.expert && g.blocking {
			// Where blocking is allowed (C6.1) the opponent can shut a
			// late piece in: the expert leaves home earlier (it lost 10 of
			// 200 diagonal-3x3 games against hard by C5.1 without this).
			weight = 20 + 1000/left
		}
		score -= weight * (homeMe - homeOpp)
	}
	return score
}

func (*cGame) Hash(b *corners.Board) uint64 { return b.Hash() }

// Order tries the plies that gain the most ground toward the far corner
// first.
func (g *cGame) Order(b *corners.Board, moves []corners.Move) {
	sign := 1
	if cMover(b) == engine.Second {
		sign = -1
	}
	gain := func(m corners.Move) int {
		f, t := m.From(), m.To()
		return sign * (t.File() + t.Rank() - f.File() - f.Rank())
	}
	slices.SortStableFunc(moves, func(a, b corners.Move) int { return gain(b) - gain(a) })
}

func selectCorners(ctx context.Context, p corners.Position, lvl Level, budget time.Duration, threads int, rng *rand.Rand) (Choice, error) {
	b := p.Board()
	if p.Variant().Players == 1 && lvl > Medium {
		// Training is a solo game: plies do not alternate, so the negamax
		// levels have nothing to search for; they play medium's greedy ply.
		lvl = Medium
	}
	real := newCGame(b, false)
	gs := levelGames[corners.Board, corners.Move, *cGame, *cGame, *cGame]{
		simple: newCGame(b, true),
		medium: real,
		deep:   real,
	}
	if lvl == Expert {
		x := newCGame(b, false)
		x.expert, x.root = true, b.Plies()
		// No killers or late-move reductions: with them the expert
		// scored 76% against hard instead of 87.5% (classic-3x3, 40
		// games of 100 ms each).
		gs.deep = x
		// A Corners move holds its path: 1<<15 entries are 2.9 MB.
		gs.tableBits = tableBits(budget, 15)
	}
	m, c, err := choose(ctx, gs, b, lvl, budget, threads, rng)
	c.Ply = m
	return c, err
}
