package records

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

// history's rows fit 80 columns in every language, with the longest
// variant names, results and opponents' names: the id stays whole (replay
// takes it), long names are elided; a wide terminal shows everything.
func TestHistoryFits80Columns(t *testing.T) {
	t.Parallel()
	ended := timestamppb.New(time.Date(2026, 12, 6, 15, 4, 0, 0, time.UTC))
	game := func(id string, g gamev1.Game, variant, opponent string, res gamev1.Result, reason gamev1.Reason, plies int32) *lobbyv1.MatchSummary {
		return &lobbyv1.MatchSummary{
			MatchId: id, Game: g, Variant: variant, PlyCount: plies, EndedAt: ended, YourSeat: gamev1.Seat_SEAT_FIRST,
			Participants: []*gamev1.Participant{{Seat: gamev1.Seat_SEAT_FIRST, DisplayName: "tester"}, {Seat: gamev1.Seat_SEAT_SECOND, DisplayName: opponent}},
			Outcome:      &gamev1.Outcome{Result: res, Winner: gamev1.Seat_SEAT_SECOND, Reason: reason},
		}
	}
	games := []*lobbyv1.MatchSummary{
		game("ABCDEFGHIJKLMNOPQRSTUVWXYZ", gamev1.Game_GAME_QUORIDOR, "limit200", "Bernardo Teixeira de Albu", gamev1.Result_RESULT_DRAW, gamev1.Reason_REASON_PLY_LIMIT, 200),
		game("BCDEFGHIJKLMNOPQRSTUVWXYZA", gamev1.Game_GAME_CORNERS, "training", "Ana", gamev1.Result_RESULT_WIN, gamev1.Reason_REASON_DEADLINE, 1234),
		game("CDEFGHIJKLMNOPQRSTUVWXYZAB", gamev1.Game_GAME_BANQI, "standard", "Robô", gamev1.Result_RESULT_WIN, gamev1.Reason_REASON_NO_LEGAL_MOVE, 99),
	}
	for _, lang := range []string{"en", "pt-BR", "es"} {
		e := &cli.Env{P: text.Catalog.Printer(lang)}
		var out bytes.Buffer
		e.Stdout = &out
		if err := writeHistory(e, games, 80); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 1+len(games) {
			t.Fatalf("%s: %d lines, want the header and %d games:\n%s", lang, len(lines), len(games), out.String())
		}
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%s: line %d is %d columns wide:\n%s", lang, i+1, n, out.String())
			}
			if i > 0 {
				if f := strings.Fields(l); f[len(f)-1] != games[i-1].GetMatchId() {
					t.Errorf("%s: row %d does not end with its id whole: %q", lang, i, l)
				}
			}
		}
		// Wide enough, nothing is cut.
		out.Reset()
		if err := writeHistory(e, games, 200); err != nil {
			t.Fatal(err)
		}
		if want := text.Variant(e.P, gamev1.Game_GAME_QUORIDOR, "limit200"); !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "Bernardo Teixeira de Albu") {
			t.Errorf("%s at 200 columns: %q or the opponent's name cut:\n%s", lang, want, out.String())
		}
	}
}
