package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

// onOneLine fails when a phrase of screen is not whole on one of its
// lines (the wrap broke it).
func onOneLine(t *testing.T, what, screen string, phrases ...string) {
	t.Helper()
	for _, p := range phrases {
		found := false
		for l := range strings.Lines(screen) {
			found = found || strings.Contains(l, p)
		}
		if !found {
			t.Errorf("%s: %q is not whole on a line:\n%s", what, p, screen)
		}
	}
}

// At 80 columns, in each language, the quit question keeps the resume
// command on one line, and the resume picker breaks its entries between
// phrases ("your move", "started 3 h ago") and its keys between keys,
// never inside one.
func TestQuitAndResumeWrapAtPhrases(t *testing.T) {
	t.Parallel()
	const hint = "`go run ./cmd/tabuleiro play --resume`"
	for _, lang := range languages {
		p := text.Catalog.Printer(lang)
		f := newFakeMatch(t)
		deps := startOn(f)
		deps.Printer, deps.ResumeHint, deps.Online = p, hint, true
		d := newDriver(t, New(deps))
		d.handle(tea.WindowSizeMsg{Width: 80, Height: 40})
		d.waitText(text.T(p, "foot"))
		d.key("q")
		fits(t, lang+" quit", 80, d.screen())
		onOneLine(t, lang+" quit", d.screen(), hint)

		now := time.Now()
		picker := Deps{Printer: p, Now: func() time.Time { return now }, Resume: func(string) (*Table, error) { return nil, errNoMore }}
		picker.Active = []*lobbyv1.MatchSummary{
			{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", YourSeat: gamev1.Seat_SEAT_FIRST, PlyCount: 12,
				Participants: []*gamev1.Participant{{DisplayName: "Convidado WXYZ"}, {DisplayName: "Robô (especialista)"}},
				ToMove:       gamev1.Seat_SEAT_FIRST, StartedAt: timestamppb.New(now.Add(-3 * time.Hour))},
			{MatchId: "m2", Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", YourSeat: gamev1.Seat_SEAT_SECOND,
				ToMove: gamev1.Seat_SEAT_FIRST, StartedAt: timestamppb.New(now.Add(-5 * time.Minute))},
		}
		m := New(picker)
		m.width = 80
		screen := m.View()
		fits(t, lang+" picker", 80, screen)
		phrases := []string{
			strings.TrimPrefix(text.T(p, "offer.your_move"), ", "),
			strings.TrimPrefix(text.T(p, "offer.started", "ago", m.ago(3*time.Hour)), ", "),
		}
		phrases = append(phrases, strings.Split(text.T(p, "offer.keys"), " · ")...)
		onOneLine(t, lang+" picker", screen, phrases...)
	}
}
