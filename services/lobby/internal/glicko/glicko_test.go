package glicko

import (
	"math"
	"testing"
)

// TestPaperExample is the worked example of Glickman's "Example of the
// Glicko-2 system": τ = 0.5, a 1500/200/0.06 player beats a 1400/30 player
// and loses to 1550/100 and 1700/300 players.
func TestPaperExample(t *testing.T) {
	t.Parallel()
	p := Default()
	got := p.Update(Rating{1500, 200, 0.06}, []Result{
		{Opponent: Rating{Rating: 1400, Deviation: 30}, Score: 1},
		{Opponent: Rating{Rating: 1550, Deviation: 100}, Score: 0},
		{Opponent: Rating{Rating: 1700, Deviation: 300}, Score: 0},
	})
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"rating", got.Rating, 1464.06, 0.01},
		{"deviation", got.Deviation, 151.52, 0.01},
		{"volatility", got.Volatility, 0.05999, 0.00001},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > tt.tol {
			t.Errorf("%s = %.5f, want %.5f ± %g", tt.name, tt.got, tt.want, tt.tol)
		}
	}
}

func TestNoGamesOnlyWidensDeviation(t *testing.T) {
	t.Parallel()
	p := Default()
	in := Rating{1500, 200, 0.06}
	got := p.Update(in, nil)
	want := math.Sqrt(200*200/scale/scale+0.06*0.06) * scale
	if got.Rating != 1500 || math.Abs(got.Deviation-want) > 1e-9 || got.Volatility != 0.06 {
		t.Errorf("Update(no games) = %+v, want rating 1500, deviation %.4f", got, want)
	}
	if capped := p.Update(Rating{1500, 350, 0.06}, nil); capped.Deviation != 350 {
		t.Errorf("deviation %.4f, want capped at 350", capped.Deviation)
	}
}

func TestGameIsSymmetric(t *testing.T) {
	t.Parallel()
	p := Default()
	tests := []struct {
		name       string
		firstScore float64
		wantUp     bool // the first player's rating rises
	}{
		{"first wins", 1, true},
		{"first loses", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := p.Game(p.Initial, p.Initial, tt.firstScore)
			if (a.Rating > 1500) != tt.wantUp {
				t.Errorf("first rating %.2f, want rise %v", a.Rating, tt.wantUp)
			}
			if math.Abs((a.Rating-1500)+(b.Rating-1500)) > 1e-6 {
				t.Errorf("changes %.4f and %.4f are not opposite", a.Rating-1500, b.Rating-1500)
			}
			if a.Deviation >= 350 || b.Deviation >= 350 {
				t.Errorf("deviations %.2f, %.2f did not shrink", a.Deviation, b.Deviation)
			}
		})
	}
	a, b := p.Game(p.Initial, p.Initial, 0.5)
	if math.Abs(a.Rating-1500) > 1e-9 || math.Abs(b.Rating-1500) > 1e-9 {
		t.Errorf("draw between equals moved ratings to %.4f, %.4f", a.Rating, b.Rating)
	}
}
