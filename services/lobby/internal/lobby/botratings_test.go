package lobby

import (
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
)

// The table of measured ladders stays what ListVariants promises when it
// is edited: variants that exist, every level once, easiest first, easy
// the anchor at 0, each rating inside its interval.
func TestBotRatingsTable(t *testing.T) {
	measured := 0
	for _, g := range games.List() {
		vs, err := games.Variants(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			rs := BotRatings(g, v.ID)
			if len(rs) == 0 {
				continue
			}
			measured++
			if len(rs) != 4 {
				t.Errorf("%s %s: %d levels rated, want the 4", g, v.ID, len(rs))
				continue
			}
			for i, r := range rs {
				if r.Level != BotLevel(i+1) {
					t.Errorf("%s %s: line %d rates %v, want %v (easiest first)", g, v.ID, i, r.Level, BotLevel(i+1))
				}
				if r.Low > r.Rating || r.Rating > r.High {
					t.Errorf("%s %s %v: %d outside [%d, %d]", g, v.ID, r.Level, r.Rating, r.Low, r.High)
				}
			}
			if e := rs[0]; e.Rating != 0 || e.Low != 0 || e.High != 0 {
				t.Errorf("%s %s: easy is %+v, want the anchor 0 [0, 0]", g, v.ID, e)
			}
		}
	}
	// Every line names a variant that exists.
	n := 0
	for _, r := range botRatings {
		if _, err := games.Variants(r.game); err != nil {
			t.Errorf("line %+v: %v", r, err)
		}
		n++
	}
	if measured*4 != n {
		t.Errorf("%d lines, but %d variants have ratings: some line names no variant", n, measured)
	}
	if BotRatings(engine.Quoridor, "limit200") != nil || BotRatings(engine.Quoridor, "nonesuch") != nil {
		t.Error("ratings for a variant never measured")
	}
}
