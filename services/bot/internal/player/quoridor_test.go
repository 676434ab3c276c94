package player

import (
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
