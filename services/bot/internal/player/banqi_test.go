package player

import (
	"strconv"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine/banqi"
)

// bEnding is a Banqi ending: red (first, to move) has its general on a1,
// black a chariot on the square at, every other piece captured; red is
// ahead (black lost its general, red a chariot). quiet is the count of
// plies without a capture or a reveal (B5.2).
func bEnding(t *testing.T, at banqi.Square, last string, quiet int) banqi.View {
	t.Helper()
	board := []byte(strings.Repeat(".", banqi.NumSquares))
	board[0] = 'K'
	board[at] = 'r'
	s := string(board) + " first red " + strconv.Itoa(quiet) + " 100 " + last + " AABBRRNNCCPPPPPkaabbrnnccppppp"
	v, err := banqi.DecodeConcreteView(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBanqiConversion: the expert's evaluation drives the side ahead in
// material toward the enemy pieces it can capture (B4.1) and values an
// advantage less as the B5.2 draw nears; the other levels' evaluation does
// neither.
func TestBanqiConversion(t *testing.T) {
	t.Parallel()
	near := bEnding(t, banqi.SquareAt(2, 0), "c2-c1", 10) // chariot on c1, two squares from the general
	far := bEnding(t, banqi.SquareAt(7, 3), "h3-h4", 10)  // chariot on h4, ten squares away
	late := bEnding(t, banqi.SquareAt(7, 3), "h3-h4", 100)

	red := banqi.Red
	cNear, cFar := conversion(&near, red, 450), conversion(&far, red, 450)
	if cNear <= cFar || cFar <= 0 {
		t.Errorf("conversion for red ahead: near %d, far %d; want near > far > 0", cNear, cFar)
	}
	if got := conversion(&near, banqi.Black, -450); got != -cNear {
		t.Errorf("conversion for black behind = %d, want %d", got, -cNear)
	}
	if got := conversion(&near, red, 0); got != 0 {
		t.Errorf("conversion with level material = %d, want 0", got)
	}

	expert, hard := bGame{reveals: 4, convert: true}, bGame{reveals: 4}
	sNear, sFar, sLate := expert.Eval(&bState{v: near}), expert.Eval(&bState{v: far}), expert.Eval(&bState{v: late})
	if sNear <= sFar || sLate >= sFar || sLate <= 0 {
		t.Errorf("expert eval near %d, far %d, late %d: want near > far > late > 0", sNear, sFar, sLate)
	}
	if h1, h2 := hard.Eval(&bState{v: far}), hard.Eval(&bState{v: late}); h1 != h2 {
		t.Errorf("hard eval depends on the draw clock: %d at quiet 10, %d at quiet 100", h1, h2)
	}
}

func TestCanTake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b banqi.Kind
		want bool
	}{
		{banqi.General, banqi.Advisor, true},
		{banqi.General, banqi.Soldier, false}, // B4.1
		{banqi.Soldier, banqi.General, true},  // B4.1
		{banqi.Soldier, banqi.Soldier, true},  // equal rank
		{banqi.Horse, banqi.Chariot, false},
		{banqi.Cannon, banqi.General, true}, // B4.2, over a screen
	}
	for _, tt := range tests {
		if got := canTake(tt.a, tt.b); got != tt.want {
			t.Errorf("canTake(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
