package player

import (
	"math/rand/v2"
	"testing"

	"tabuleiro.dev/pkg/engine/quoridor"
)

// TestQuoridorRaceEval: once a side has no walls left (Q3.1) its race is
// decided by path lengths, and every level above easy scores it so: the
// side to move wins a race whose path is no longer (it moves first), and
// loses one that is longer when it has no walls to slow the other.
func TestQuoridorRaceEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pos  string
		won  bool // for the side to move; false: lost
	}{
		{"white to move, level paths, black out of walls", "standard e6 e4 3/0 - w 30 e4", true},
		{"white to move, shorter path, black out of walls", "standard e7 e4 3/0 - w 30 e4", true},
		{"black to move, longer path, black out of walls", "standard e7 e4 3/0 - b 31 e7", false},
		{"black to move, level paths, white out of walls", "standard e6 e4 0/4 - b 31 e6", true},
	}
	for _, tt := range tests {
		p, err := quoridor.DecodePosition(tt.pos)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, g := range []qGame{{walls: &flatWalls}, {walls: &reserveWalls}, {walls: &reserveWalls, narrow: true}} {
			s := newQState(p)
			got := g.Eval(&s)
			if tt.won && got < qRaceWon || !tt.won && got > -qRaceWon {
				t.Errorf("%s (%s): eval %d, want won=%v (|eval| ≥ %d)", tt.name, tt.pos, got, tt.won, qRaceWon)
			}
		}
	}
}

// TestPathAnchors checks pathAnchors against its definition along random
// games: the anchors of the walls that touch a square on some shortest path
// of the pawn (a square whose distances from the pawn and from the goal
// add up to the pawn's distance).
func TestPathAnchors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 3))
	for range 10 {
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for !p.Outcome().Over() && p.Plies() < 100 {
			s := newQState(p)
			for side := range 2 {
				var want uint64
				d := s.dist(side)
				for r := range 8 {
					for f := range 8 {
						for _, sq := range [4]int{f + 9*r, f + 1 + 9*r, f + 9*(r+1), f + 1 + 9*(r+1)} {
							if bfsFrom(&s, sq, int(p.Pawn(seatOfSide(side))))+bfsGoal(&s, sq, side) == d {
								want |= 1 << (f + 8*r)
							}
						}
					}
				}
				if got := s.pathAnchors(side, false); got != want {
					t.Fatalf("%s side %d: pathAnchors = %#x, want %#x", p.Encode(), side, got, want)
				}
			}
			legal := p.LegalMoves(nil)
			p = p.PlayUnchecked(legal[rng.IntN(len(legal))])
		}
	}
}

// bfsFrom is the open-step distance from square a to square b.
func bfsFrom(s *qState, a, b int) int {
	front, seen := bit(a), bit(a)
	for d := 0; d < noPath; d++ {
		if front.has(b) {
			return d
		}
		front = s.expand(front).andNot(seen)
		seen = seen.or(front)
	}
	return noPath
}

// bfsGoal is the open-step distance from square a to side's goal rank.
func bfsGoal(s *qState, a, side int) int {
	front, seen := bit(a), bit(a)
	for d := 0; d < noPath; d++ {
		if !front.and(qGoals[side]).empty() {
			return d
		}
		front = s.expand(front).andNot(seen)
		seen = seen.or(front)
	}
	return noPath
}

// TestQuoridorEvalPrefersTheBetter: every evaluation above easy's scores
// the obviously better of two positions higher for the side to move: a
// shorter path with the same walls, more walls left with the same paths.
func TestQuoridorEvalPrefersTheBetter(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, better, worse string }{
		{"white nearer its goal", "standard e4 e7 5/5 - w 20 e7", "standard e3 e7 5/5 - w 20 e7"},
		{"black nearer its goal", "standard e3 e6 5/5 - b 21 e3", "standard e3 e8 5/5 - b 21 e3"},
		{"black farther from its goal", "standard e3 e8 5/5 - w 20 e8", "standard e3 e6 5/5 - w 20 e6"},
		{"white with more walls", "standard e3 e7 6/3 - w 20 e7", "standard e3 e7 3/6 - w 20 e7"},
		{"black with more walls", "standard e3 e7 4/8 - b 21 e3", "standard e3 e7 5/7 - b 21 e3"},
		{"white with the last wall", "standard e3 e7 1/0 - w 20 e7", "standard e3 e7 0/1 - w 20 e7"},
	}
	games := map[string]qGame{"medium": {walls: &flatWalls}, "hard": hardQGame(), "expert": expertQGame(), "expert-1": expert1QGame()}
	for _, tt := range tests {
		better, worse := mustDecode(t, tt.better), mustDecode(t, tt.worse)
		for name, g := range games {
			sb, sw := newQState(better), newQState(worse)
			if b, w := g.Eval(&sb), g.Eval(&sw); b <= w {
				t.Errorf("%s, %s's eval: %d for %q, not above %d for %q", tt.name, name, b, tt.better, w, tt.worse)
			}
		}
	}
}

func mustDecode(t *testing.T, s string) quoridor.Position {
	t.Helper()
	p, err := quoridor.DecodePosition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoalDistances checks goalDistances against a breadth-first search
// from each pawn destination along random games.
func TestGoalDistances(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 5))
	for range 10 {
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for !p.Outcome().Over() && p.Plies() < 100 {
			s := newQState(p)
			moves := p.LegalMoves(nil)
			side := sideOfSeat(p.ToMove())
			var d [81]int8
			s.goalDistances(side, moves, &d)
			sqs := []int{int(p.Pawn(p.ToMove()))}
			for _, m := range moves {
				if m.IsPawn() {
					sqs = append(sqs, int(m.To()))
				}
			}
			for _, sq := range sqs {
				if want := bfsGoal(&s, sq, side); int(d[sq]) != want {
					t.Fatalf("%s: distance of %d to the goal %d, want %d", p.Encode(), sq, d[sq], want)
				}
			}
			p = p.PlayUnchecked(moves[rng.IntN(len(moves))])
		}
	}
}
