package player

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/pkg/engine/quoridor"
)

// TestWallGainMatchesEveryWall: wallGain, which tries only the walls
// across one shortest path, finds the same best gain as placing every
// legal wall in turn, for both pawns, along random games with many walls.
func TestWallGainMatchesEveryWall(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 49))
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 60 && !p.Outcome().Over(); ply++ {
			s := newQState(p)
			walls := 0
			for _, m := range p.LegalMoves(nil) {
				if m.IsWall() {
					walls++
				}
			}
			for side := range 2 {
				d := s.dist(side)
				want := 0
				if walls > 0 {
					for _, m := range p.LegalMoves(nil) {
						if !m.IsWall() {
							continue
						}
						n := s
						n.addWall(m)
						want = max(want, min(n.dist(side)-d, wallGainCap))
					}
				}
				// A wall the other pawn's path alone forbids is tried too,
				// and walls in hand do not matter: compare only when the
				// side to move holds walls and the gains agree on legality.
				if walls == 0 {
					continue
				}
				if got := s.computeWallGain(int(p.Pawn(seatOfSide(side))), side, d, wallGainCap, false); got < want {
					t.Errorf("%s: side %d: wallGain %d, best legal wall %d", p.Encode(), side, got, want)
				} else if got > want {
					t.Logf("%s: side %d: wallGain %d over the legal walls' %d (a wall that would close the other pawn in)", p.Encode(), side, got, want)
				}
				if g := s.wallGain(side, d, wallGainCap, false); g != s.computeWallGain(int(p.Pawn(seatOfSide(side))), side, d, wallGainCap, false) {
					t.Fatalf("%s: cached wallGain %d differs", p.Encode(), g)
				}
				checked++
			}
			legal := p.LegalMoves(nil)
			m := legal[rng.IntN(len(legal))]
			if rng.IntN(3) == 0 { // step more often than the walls' share
				for _, c := range legal {
					if c.IsPawn() {
						m = c
						break
					}
				}
			}
			if p, err = p.PlayMove(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// TestRacer: the racer's one-ply policy places the wall of largest race
// gain when it is large, steps along its shortest path otherwise; the
// searching racer (20,000 positions a ply) plays only legal plies along
// whole games against the easy level, places walls, and plays only
// Quoridor.
func TestRacer(t *testing.T) {
	old := nodeLimits[Racer]
	nodeLimits[Racer] = 20000 // set before the parallel tests run; only the racer reads it
	t.Cleanup(func() { nodeLimits[Racer] = old })
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 9))
	p := midgame(t)
	c, err := racerQuoridor(p, rng)
	if err != nil {
		t.Fatal(err)
	}
	s := newQState(p)
	me := sideOfSeat(p.ToMove())
	m := c.Ply.(quoridor.Move)
	n := s.pos.PlayUnchecked(m)
	ns := newQState(n)
	if m.IsWall() {
		gain := (ns.dist(1-me) - s.dist(1-me)) - (ns.dist(me) - s.dist(me))
		if gain < racerBehindGain {
			t.Errorf("racer placed %s for a gain of %d", m, gain)
		}
	} else if ns.dist(me) >= s.dist(me) {
		t.Errorf("racer stepped %s without shortening its path %d", m, s.dist(me))
	}
	// The racer searches (the one-ply policy reports depth 1).
	if c, err := Select(t.Context(), p, Racer, time.Second, rng); err != nil || c.Depth < 3 {
		t.Errorf("racer in the midgame: depth %d, %v; want a search of 3 plies or more", c.Depth, err)
	}
	walls := 0
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 49))
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 400 && !p.Outcome().Over(); ply++ {
			lvl := Easy
			if ply%2 == int(seed%2) {
				lvl = Racer
			}
			c, err := Select(t.Context(), p, lvl, time.Second, rng)
			if err != nil {
				t.Fatal(err)
			}
			m := c.Ply.(quoridor.Move)
			if lvl == Racer && m.IsWall() {
				walls++
			}
			if p, err = p.PlayMove(m); err != nil {
				t.Fatalf("ply %d %s %s: %v", ply, lvl, m, err)
			}
		}
		if !p.Outcome().Over() {
			t.Errorf("seed %d: not over after 400 plies", seed)
		}
	}
	if walls == 0 {
		t.Error("the racer placed no wall in four games")
	}
	cp, err := corners.New("classic-3x3", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Select(t.Context(), cp, Racer, time.Second, rng); !errors.Is(err, ErrUnknownGame) {
		t.Errorf("racer in Corners: %v, want ErrUnknownGame", err)
	}
}

// TestEvalWithinBounds: the expert's evaluation with the wall threats
// (threat3, threat6) at the search's leaves returns Eval's score inside
// the window and a true bound beyond it (the score at most what it
// returns at or below alpha, at least at or above beta), along random
// games with many walls.
func TestEvalWithinBounds(t *testing.T) {
	t.Parallel()
	var games []qGame
	for _, v := range []string{"threat3", "threat6f"} {
		g, ok := labExpert(v)
		if !ok {
			t.Fatalf("no variant %s", v)
		}
		games = append(games, g)
	}
	checked, cut := 0, 0
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 7))
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 80 && !p.Outcome().Over(); ply++ {
			s := newQState(p)
			for _, g := range games {
				e := g.Eval(&s)
				for range 8 {
					alpha := e + rng.IntN(800) - 400
					beta := alpha + 1 + rng.IntN(3)*rng.IntN(200)
					v := g.EvalWithin(&s, alpha, beta)
					switch {
					case v <= alpha:
						if e > v {
							t.Fatalf("%s (%d, %d): %d, but Eval %d", p.Encode(), alpha, beta, v, e)
						}
						cut += b2i(e != v)
					case v >= beta:
						if e < v {
							t.Fatalf("%s (%d, %d): %d, but Eval %d", p.Encode(), alpha, beta, v, e)
						}
						cut += b2i(e != v)
					case v != e:
						t.Fatalf("%s (%d, %d): %d inside the window, Eval %d", p.Encode(), alpha, beta, v, e)
					}
					checked++
				}
			}
			legal := p.LegalMoves(nil)
			if p, err = p.PlayMove(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cut == 0 || checked < 1000 {
		t.Fatalf("%d windows checked, %d cut short", checked, cut)
	}
}

// TestWallsGainGreedyPair: wallsGain with two walls is at least one
// wall's gain, and the two walls it places (the best one, then the best
// one after it) lengthen the pawn's path by exactly that much, along the
// random games of TestWallGainMatchesEveryWall.
func TestWallsGainGreedyPair(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 49))
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 60 && !p.Outcome().Over(); ply++ {
			s := newQState(p)
			for side := range 2 {
				d := s.dist(side)
				pawn := int(p.Pawn(seatOfSide(side)))
				one := s.wallGain(side, d, wallGainCap, false)
				two := s.wallsGain(side, d, wallGainCap, false, 2)
				if two < one {
					t.Fatalf("%s: side %d: two walls gain %d, one %d", p.Encode(), side, two, one)
				}
				if one == 0 {
					continue
				}
				g1, a, o := s.bestWall(pawn, side, d, wallGainCap, false)
				n := s
				closeWall(&n.closed, a%8, a/8, o)
				if o == quoridor.Horizontal {
					n.hWalls |= 1 << uint(a)
				} else {
					n.vWalls |= 1 << uint(a)
				}
				if got := n.dist(side) - d; got != g1 {
					t.Fatalf("%s: side %d: the best wall adds %d, not its gain %d", p.Encode(), side, got, g1)
				}
				if g1 < wallGainCap {
					if g2, a2, o2 := n.bestWall(pawn, side, d+g1, wallGainCap-g1, false); g2 > 0 {
						closeWall(&n.closed, a2%8, a2/8, o2)
					}
				}
				if got := min(n.dist(side)-d, wallGainCap); got != two {
					t.Fatalf("%s: side %d: the greedy pair adds %d, wallsGain %d", p.Encode(), side, got, two)
				}
				checked++
			}
			legal := p.LegalMoves(nil)
			m := legal[rng.IntN(len(legal))]
			if rng.IntN(3) == 0 {
				for _, c := range legal {
					if c.IsPawn() {
						m = c
						break
					}
				}
			}
			if p, err = p.PlayMove(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d positions checked", checked)
	}
}
