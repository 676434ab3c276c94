package player

import (
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine/quoridor"
)

// racePocket: white (to move) on e7 in a corridor of four walls, two steps
// from its goal; black on b3, two steps from its own, holds walls. The
// fixed table sees an even race with white's half step ahead, but black's
// next wall (d8h or e8h) closes the corridor's top and sends white back
// round it, a pocket of seven steps or more.
const racePocket = "standard e7 b3 8/8 d5v,e5v,d7v,e7v w 20 b3"

func TestRaceSearchSeesPocket(t *testing.T) {
	p, err := quoridor.DecodePosition(racePocket)
	if err != nil {
		t.Fatal(err)
	}
	s := newQState(p)
	if s.dist(0) != 2 || s.dist(1) != 2 {
		t.Fatalf("paths %d, %d: want 2, 2", s.dist(0), s.dist(1))
	}
	fixed := expertQGame()
	static := fixed.Eval(&s)
	if v, n := fixed.LeafWithin(&s, -qEvalInf, qEvalInf); v != static || n != 0 {
		t.Fatalf("the fixed table's leaf: %d (%d positions), want its evaluation %d and none", v, n, static)
	}
	if static <= 0 {
		t.Fatalf("the fixed table scores the pocket %d for white: the test wants a position it misjudges", static)
	}
	for _, name := range []string{"race2", "race2k2", "race3", "race4k2", "race2k2g2", "race2k2g3", "race2k2f", "race2k2fu"} {
		g, ok := labExpert(name)
		if !ok {
			t.Fatalf("no variant %s", name)
		}
		v, n := g.LeafWithin(&s, -qEvalInf, qEvalInf)
		t.Logf("%s: %d (static %d), %d positions", name, v, static, n)
		if n == 0 && !strings.HasSuffix(name, "u") { // u: its positions uncharged
			t.Errorf("%s: no race search at a tight race", name)
		}
		if v > static-4*qStep {
			t.Errorf("%s: %d, want the pocket (four steps or more below %d)", name, v, static)
		}
		// Within a window the score is a bound on the right side.
		if w, _ := g.LeafWithin(&s, v-1, v+1); w != v {
			t.Errorf("%s: within (%d, %d): %d, want %d", name, v-1, v+1, w, v)
		}
		if w, _ := g.LeafWithin(&s, v+10, v+20); w > v+10 {
			t.Errorf("%s: above the window: %d, want at most alpha %d", name, w, v+10)
		}
	}
	// answer6: black's best wall (d8h or e8h, seven steps, six counted)
	// leaves white's path longer than black's: scored as placed.
	a, _ := labExpert("answer6")
	if v, n := a.LeafWithin(&s, -qEvalInf, qEvalInf); n != 0 || v != static-6*qStep+expertWeights.walls[8]-expertWeights.walls[7] {
		t.Errorf("answer6: %d (%d positions), want %d", v, n, static-6*qStep+expertWeights.walls[8]-expertWeights.walls[7])
	}
	// The race moves: white's step and the walls of largest race gain
	// against black; black's include the pocket's wall.
	var buf [1 + maxRaceWalls]quoridor.Move
	moves := s.raceMoves(0, 2, 2, 3, buf[:0])
	if len(moves) == 0 || moves[0].String() != "e8" {
		t.Fatalf("white's race moves %v: want the step e8 first", moves)
	}
	b := fixed.Play(&s, moves[0])
	bm := b.raceMoves(1, 2, 1, 3, buf[:0])
	found := false
	for _, m := range bm[1:] {
		found = found || m.String() == "d8h" || m.String() == "e8h"
	}
	if !found {
		t.Errorf("black's race moves after e8: %v, want the pocket's wall d8h or e8h", bm)
	}
}

func TestParseRace(t *testing.T) {
	for _, c := range []struct {
		name             string
		d, k, near, gate int
		ok               bool
	}{
		{"race2", 2, 3, 6, 0, true},
		{"race4k2", 4, 2, 6, 0, true},
		{"race3k2n8", 3, 2, 8, 0, true},
		{"race2k2g3", 2, 2, 6, 3, true},
		{"race", 0, 0, 0, 0, false},
		{"racex", 0, 0, 0, 0, false},
		{"race2q1", 0, 0, 0, 0, false},
	} {
		var d, k, near, gate int
		ok := parseRace(c.name, &d, &k, &near, &gate)
		if ok != c.ok || ok && (d != c.d || k != c.k || near != c.near || gate != c.gate) {
			t.Errorf("%s: %d %d %d %d %v", c.name, d, k, near, gate, ok)
		}
	}
}
