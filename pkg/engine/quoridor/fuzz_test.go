package quoridor

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"e2", "e3h", "h8v", "a1h", "i9", "j1", "e0", "e10", "i1h", "a9v", "", "e3x", "E2", "\x00", "e2 e8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMove(s)
		if err != nil {
			var se *engine.SyntaxError
			if !errors.As(err, &se) || se.Input != s || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("ParseMove(%q) error %v is not a proper *engine.SyntaxError", s, err)
			}
			return
		}
		if !m.IsPawn() && !m.IsWall() {
			t.Fatalf("ParseMove(%q) = %d, not a move", s, m)
		}
		if m.String() != s {
			t.Fatalf("ParseMove(%q).String() = %q", s, m.String())
		}
		if again, err := ParseMove(m.String()); err != nil || again != m {
			t.Fatalf("ParseMove(%q) round trip = %v, %v", s, again, err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"standard e1 e9 10/10 - w 0 -",
		"limit200 e1 e9 10/10 - w 0 -",
		"standard f3 d7 4/5 d3h,f4h,h4h,e5h,a6h,c6h,d7h,e3v,g3v,d5v,e6v b 21 f3",
		"standard e9 e7 3/0 a1h,c1h,e1h,g1h,b4v,d4v,f4v,h4v,a6h,c6h,e6h,g6h,b8v,d8v,f8v,h8v,c3h - 77 e9",
		"standard e1 e9 0/0 - w 0 -",
		"limit200 e1 e9 10/10 - - 200 e9",
		"garbage",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodePosition(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadSetup) {
				t.Fatalf("Decode(%q) = %v, want ErrBadSetup", s, err)
			}
			return
		}
		if p.Encode() != s {
			t.Fatalf("Encode(Decode(%q)) = %q", s, p.Encode())
		}
		ms := p.LegalMoves(nil)
		if len(ms) != p.CountLegal() {
			t.Fatalf("%q: %d legal plies listed, CountLegal %d", s, len(ms), p.CountLegal())
		}
		if got, want := sortedStrings(ms), refFrom(p).legal(); p.Outcome() == (engine.Outcome{}) && !slices.Equal(got, want) {
			t.Fatalf("%q: fast %v, reference %v", s, got, want)
		}
		for _, m := range ms {
			if _, err := p.PlayMove(m); err != nil {
				t.Fatalf("%q: listed %s: %v", s, m, err)
			}
		}
	})
}

// FuzzRandomGame plays random legal games of standard from a seed. At every
// ply the fast generator must list exactly the reference generator's plies
// (so no listed wall seals a pawn by the reference's own path search),
// every listed ply must play, Decode(Encode) must be the identity, and the
// game must end by a goal within maxRandomPlies. The mover plays a pawn
// move along its shortest path with probability at least 1/4, so games
// end.
func FuzzRandomGame(f *testing.F) {
	for i := range 6 {
		f.Add(uint64(i)*7919+1, uint8(i*50))
	}
	f.Fuzz(func(t *testing.T, seed uint64, bias uint8) {
		const maxRandomPlies = 4000
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		toGoal := 0.25 + 0.75*float64(bias)/255
		p := mustStart(t)
		var buf [maxMoves]Move
		for ply := 0; !p.Outcome().Over(); ply++ {
			if ply >= maxRandomPlies {
				t.Fatalf("seed %d: no winner after %d plies: %s", seed, ply, p.Encode())
			}
			ms := p.LegalMoves(buf[:0])
			if got, want := sortedStrings(ms), refFrom(p).legal(); !slices.Equal(got, want) {
				t.Fatalf("seed %d ply %d %s: fast %v, reference %v", seed, ply, p.Encode(), got, want)
			}
			for _, m := range ms {
				if _, err := p.PlayMove(m); err != nil {
					t.Fatalf("seed %d ply %d %s: listed %s: %v", seed, ply, p.Encode(), m, err)
				}
			}
			m := ms[rng.IntN(len(ms))]
			if rng.Float64() < toGoal {
				m = shortestStep(p)
			}
			var err error
			if p, err = p.PlayMove(m); err != nil {
				t.Fatal(err)
			}
			if d, err := DecodePosition(p.Encode()); err != nil || d != p {
				t.Fatalf("seed %d: Decode(%q) = %v", seed, p.Encode(), err)
			}
		}
		if o := p.Outcome(); o.Reason != engine.ReasonGoal || o.Winner == engine.NoSeat {
			t.Fatalf("seed %d: ended %v", seed, o)
		}
	})
}

// shortestStep returns the pawn move of the side to move that leaves it
// nearest its goal, by the reference's breadth-first distances.
func shortestStep(p Position) Move {
	r := refFrom(p)
	best, bestDist := NoMove, 1<<30
	for _, s := range p.PawnDestinations() {
		q := r
		q.pawn[r.turn] = [2]int{s.File(), s.Rank()}
		if d := q.distance(r.turn); d < bestDist {
			best, bestDist = PawnTo(s), d
		}
	}
	return best
}

// distance returns the number of steps from side's pawn to its goal rank,
// walls only being obstacles; -1 without a path.
func (p refPos) distance(side int) int {
	goal := 8
	if side == 1 {
		goal = 0
	}
	open := p.grid()
	var dist [9][9]int
	for f := range 9 {
		for r := range 9 {
			dist[f][r] = -1
		}
	}
	queue := [][2]int{p.pawn[side]}
	dist[p.pawn[side][0]][p.pawn[side][1]] = 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c[1] == goal {
			return dist[c[0]][c[1]]
		}
		for i, d := range refDirs {
			f, r := c[0]+d[0], c[1]+d[1]
			if open[c[0]][c[1]][i] && dist[f][r] < 0 {
				dist[f][r] = dist[c[0]][c[1]] + 1
				queue = append(queue, [2]int{f, r})
			}
		}
	}
	return -1
}
