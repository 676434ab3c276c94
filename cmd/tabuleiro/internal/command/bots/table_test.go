package bots

import (
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/services/bot/tournament"
)

// A clean sweep's Elo difference is infinite: the table prints the 95%
// interval's finite end as a bound, never "inf".
func TestEloTextOfACleanSweepIsABound(t *testing.T) {
	t.Parallel()
	for _, r := range []tournament.Result{{Losses: 2}, {Wins: 2}, {Wins: 1, Losses: 1}} {
		txt := eloText(text.English, r)
		if strings.Contains(txt, "inf") || !strings.ContainsAny(txt, "0123456789") {
			t.Errorf("%d-%d: Elo text %q, want a finite figure", r.Wins, r.Losses, txt)
		}
	}
	if txt := eloText(text.English, tournament.Result{Losses: 10}); !strings.HasPrefix(txt, "at most -") {
		t.Errorf("0-10: Elo text %q, want an upper bound below zero", txt)
	}
	if txt := eloText(text.English, tournament.Result{Wins: 10}); !strings.HasPrefix(txt, "at least +") {
		t.Errorf("10-0: Elo text %q, want a lower bound above zero", txt)
	}
}

// A rating that rounds to zero prints as 0, whatever its sign.
func TestEloOfZero(t *testing.T) {
	t.Parallel()
	for x, want := range map[float64]string{-0.3: "0", 0: "0", 0.4: "0", -0.6: "-1", 12.5: "+13", -291: "-291"} {
		if got := elo(x); got != want {
			t.Errorf("elo(%v) = %q, want %q", x, got, want)
		}
	}
}
