package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

var languages = []string{"en", "pt-BR", "es"}

// fits fails on a line of screen wider than w columns, and on a word of
// want missing from screen (a word the terminal would cut).
func fits(t *testing.T, what string, w int, screen string, want ...string) {
	t.Helper()
	for i, l := range strings.Split(screen, "\n") {
		if lw := lipgloss.Width(l); lw > w {
			t.Errorf("%s: line %d is %d columns wide, over %d: %q", what, i+1, lw, w, l)
		}
	}
	got := strings.Fields(screen)
	for _, s := range want {
		for _, word := range strings.Fields(s) {
			i := 0
			for i < len(got) && got[i] != word {
				i++
			}
			if i == len(got) {
				t.Errorf("%s: word %q cut or lost:\n%s", what, word, screen)
				break
			}
			got = got[i+1:]
		}
	}
}

// The help (?) at 80 columns in each language: no line over the width,
// every word of every key's description there, whole and in order
// (descriptions wrap at spaces under the description's column).
func TestHelpFits80Columns(t *testing.T) {
	t.Parallel()
	for _, lang := range languages {
		m := New(Deps{Printer: text.Catalog.Printer(lang)})
		m.width = 80
		m.help = true
		var want []string
		for _, k := range helpKeys {
			want = append(want, m.t(k))
		}
		screen := m.View()
		fits(t, lang+" help", 80, screen, want...)
		if n := len(strings.Split(screen, "\n")); n > 24 {
			t.Errorf("%s help: %d lines, over 24 (its title scrolls off):\n%s", lang, n, screen)
		}
	}
}

// Banqi's side panel at 80 columns in each language: the legend and the
// rest within the width, and the seats' names lined up.
func TestBanqiSideFits80Columns(t *testing.T) {
	t.Parallel()
	cells := make([]*gamev1.BanqiCell, 32)
	for i := range cells {
		cells[i] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_FaceDown{FaceDown: &gamev1.BanqiFaceDown{}}}
	}
	view := &gamev1.GameView{
		Game: gamev1.Game_GAME_BANQI, Variant: "standard", ToMove: gamev1.Seat_SEAT_SECOND, PlyCount: 1,
		Board: &gamev1.GameView_Banqi{Banqi: &gamev1.BanqiBoard{Cells: cells, FirstColor: gamev1.BanqiColor_BANQI_COLOR_RED}},
	}
	seats := []*matchv1.SeatState{
		{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_FIRST, PlayerId: "p_bot", DisplayName: "Robô (fácil)"}},
		{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_SECOND, PlayerId: "p_ana", DisplayName: "Convidado"}},
	}
	for _, lang := range languages {
		m := New(Deps{Printer: text.Catalog.Printer(lang)})
		m.width = 80
		m.table = &Table{Seats: map[gamev1.Seat]Conn{gamev1.Seat_SEAT_SECOND: nil}}
		m.phase = phasePlaying
		m.snapshot(&matchv1.Match{View: view, Seats: seats})
		screen := m.View()
		fits(t, lang+" banqi", 80, screen, m.banqiLegend()...)
		first, second := -1, -1
		for _, l := range strings.Split(screen, "\n") {
			if i := strings.Index(l, "Robô"); i >= 0 {
				first = lipgloss.Width(l[:i])
			}
			if i := strings.Index(l, "Convidado"); i >= 0 {
				second = lipgloss.Width(l[:i])
			}
		}
		if first < 0 || first != second {
			t.Errorf("%s: the players' names start at columns %d and %d, want one column:\n%s", lang, first, second, screen)
		}
	}
}

// The game's header names the variant in the player's language, as the
// web does ("Clássica 3×3"), not by its id ("classic-3x3").
func TestVariantNameInTitle(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string]string{"en": "Corners · Classic 3×3", "pt-BR": "Corners · Clássica 3×3", "es": "Corners · Clásica 3×3"} {
		m := New(Deps{Printer: text.Catalog.Printer(lang)})
		m.table = &Table{Seats: map[gamev1.Seat]Conn{gamev1.Seat_SEAT_FIRST: nil}}
		m.phase = phasePlaying
		m.snapshot(&matchv1.Match{View: &gamev1.GameView{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"}})
		if got := m.title(); !strings.HasPrefix(got, want) {
			t.Errorf("%s: title %q, want %q", lang, got, want)
		}
		if got := text.Variant(m.p, gamev1.Game_GAME_QUORIDOR, "no-such"); got != "no-such" {
			t.Errorf("%s: unknown variant named %q, want its id", lang, got)
		}
	}
}
