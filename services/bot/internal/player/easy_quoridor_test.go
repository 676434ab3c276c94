package player

import (
	"math/rand/v2"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
)

// The easy level plays like a beginner: over seeded games between two
// easy bots it mostly walks its pawn forward, places few walls (never
// more than easyMaxWalls, none behind its own pawn, none that lengthens
// its own path), and its games end at a goal.
func TestEasyQuoridorPlaysLikeABeginner(t *testing.T) {
	t.Parallel()
	const games = 30
	var walls, pawnPlies, advancing, goals int
	for seed := range uint64(games) {
		rng := rand.New(rand.NewPCG(seed, 7))
		p, err := quoridor.NewPosition(quoridor.Standard, "")
		if err != nil {
			t.Fatal(err)
		}
		perSide := [2]int{}
		for !p.Outcome().Over() && p.Plies() < 400 {
			seat := p.ToMove()
			side := sideOfSeat(seat)
			bs := newQState(p)
			before := bs.dist(side)
			c, err := Select(t.Context(), p, Easy, time.Second, rng)
			if err != nil {
				t.Fatalf("seed %d ply %d: %v", seed, p.Plies()+1, err)
			}
			m := c.Ply.(quoridor.Move)
			next, err := p.PlayMove(m)
			if err != nil {
				t.Fatalf("seed %d: illegal %s: %v", seed, m, err)
			}
			as := newQState(next)
			after := as.dist(side)
			if m.IsWall() {
				walls++
				perSide[side]++
				if after > before {
					t.Errorf("seed %d ply %d: wall %s lengthens its own path %d → %d", seed, p.Plies()+1, m, before, after)
				}
				if behindPawn(m, p.Pawn(seat), seat) {
					t.Errorf("seed %d ply %d: wall %s behind its own pawn on %s", seed, p.Plies()+1, m, p.Pawn(seat))
				}
			} else {
				pawnPlies++
				if after < before {
					advancing++
				}
			}
			p = next
		}
		if o := p.Outcome(); o.Over() && o.Reason == engine.ReasonGoal {
			goals++
		}
		for side, n := range perSide {
			if n > easyMaxWalls {
				t.Errorf("seed %d: side %d placed %d walls, more than %d", seed, side, n, easyMaxWalls)
			}
		}
	}
	t.Logf("%d games: %.1f walls per side per game, %d of %d pawn moves advance, %d goals",
		games, float64(walls)/(2*games), advancing, pawnPlies, goals)
	if per := float64(walls) / (2 * games); per > 3 {
		t.Errorf("%.1f walls per side per game, want at most 3 (a beginner spends few)", per)
	}
	if advancing*10 < pawnPlies*7 {
		t.Errorf("only %d of %d pawn moves advance, want at least 70%%", advancing, pawnPlies)
	}
	if goals < games*9/10 {
		t.Errorf("%d of %d games ended at a goal", goals, games)
	}
}

// behindPawn on either side of a pawn on e5 (rank index 4).
func TestBehindPawn(t *testing.T) {
	t.Parallel()
	e5 := quoridor.Square(4 + 9*4)
	for _, tt := range []struct {
		wall string
		seat engine.Seat
		want bool
	}{
		{"e3h", engine.First, true},   // two grooves below white's pawn
		{"e4h", engine.First, true},   // the groove just below it
		{"e5h", engine.First, false},  // the groove in front of it
		{"d4v", engine.First, false},  // beside it (spans ranks 4 and 5)
		{"d3v", engine.First, true},   // beside the ranks below
		{"e5h", engine.Second, true},  // just behind black's pawn (black walks down)
		{"e4h", engine.Second, false}, // in front of it
		{"d5v", engine.Second, false}, // beside it (ranks 5 and 6)
		{"d6v", engine.Second, true},
	} {
		m, err := quoridor.ParseMove(tt.wall)
		if err != nil {
			t.Fatal(err)
		}
		if got := behindPawn(m, e5, tt.seat); got != tt.want {
			t.Errorf("behindPawn(%s, e5, %v) = %v, want %v", tt.wall, tt.seat, got, tt.want)
		}
	}
}
