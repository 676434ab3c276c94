package records

import (
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

func TestResultForAndPliesText(t *testing.T) {
	aborted := &lobbyv1.MatchSummary{Outcome: &gamev1.Outcome{Result: gamev1.Result_RESULT_DRAW, Reason: gamev1.Reason_REASON_ABORTED}}
	if got := resultFor(nil, aborted); got != "aborted (no result)" {
		t.Errorf("an aborted game: %q, want it not called a draw", got)
	}
	drawn := &lobbyv1.MatchSummary{Outcome: &gamev1.Outcome{Result: gamev1.Result_RESULT_DRAW, Reason: gamev1.Reason_REASON_AGREEMENT}}
	if got := resultFor(nil, drawn); got != "draw (agreement)" {
		t.Errorf("a drawn game: %q", got)
	}
	for n, want := range map[int]string{0: "no plies", 1: "1 ply", 2: "2 plies"} {
		if got := gameword.Plies(nil, n); got != want {
			t.Errorf("gameword.Plies(%d) = %q, want %q", n, got, want)
		}
	}
}
