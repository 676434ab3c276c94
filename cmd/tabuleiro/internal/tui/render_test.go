package tui

import (
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/corners"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// seated returns a model showing snapshot s to the person in seat.
func seated(seat gamev1.Seat, s *matchv1.Match) Model {
	m := New(Deps{})
	m.table = &Table{Seats: map[gamev1.Seat]Conn{seat: nil}}
	m.phase = phasePlaying
	m.snapshot(s)
	return m
}

// Banqi: face-down squares, the captured pieces and the seat's colour
// once the first reveal has fixed it (B2).
func TestBanqiScreen(t *testing.T) {
	t.Parallel()
	cells := make([]*gamev1.BanqiCell, 32)
	for i := range cells {
		cells[i] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_FaceDown{FaceDown: &gamev1.BanqiFaceDown{}}}
	}
	cells[2] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_Revealed{Revealed: gamev1.BanqiPiece_BANQI_PIECE_BLACK_CHARIOT}}
	cells[3] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_Empty{Empty: &gamev1.BanqiEmpty{}}}
	view := &gamev1.GameView{
		Game: gamev1.Game_GAME_BANQI, Variant: "standard", ToMove: gamev1.Seat_SEAT_SECOND, PlyCount: 3,
		Board: &gamev1.GameView_Banqi{Banqi: &gamev1.BanqiBoard{
			Cells: cells, Captured: []gamev1.BanqiPiece{gamev1.BanqiPiece_BANQI_PIECE_RED_SOLDIER},
			FirstColor: gamev1.BanqiColor_BANQI_COLOR_RED,
		}},
	}
	m := seated(gamev1.Seat_SEAT_SECOND, &matchv1.Match{View: view})
	screen := m.View()
	tests := []struct{ name, want string }{
		{"colour", "You play black"},
		{"captured", "Captured: P"},
		{"revealed black chariot on c1", " r "},
		{"turn", "Your move (black)"},
	}
	for _, tt := range tests {
		if !strings.Contains(screen, tt.want) {
			t.Errorf("%s: screen lacks %q:\n%s", tt.name, tt.want, screen)
		}
	}
	if n := strings.Count(screen, " ? "); n < 29 {
		t.Errorf("%d face-down squares drawn, want 30:\n%s", n, screen)
	}
}

// Corners: black sees the board turned, its home at the bottom; the board
// comes from the view's encoding when the structured board is absent.
func TestCornersTurnedForBlack(t *testing.T) {
	t.Parallel()
	pos, err := corners.New("classic-3x3", "")
	if err != nil {
		t.Fatal(err)
	}
	view := &gamev1.GameView{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", ToMove: gamev1.Seat_SEAT_FIRST,
		Encoding: pos.View(engine.First).Encode()}
	tests := []struct {
		seat       gamev1.Seat
		files      string // the file labels, left to right
		bottomRank string
		bottom     string // the bottom row's first square holds this piece
	}{
		{gamev1.Seat_SEAT_FIRST, "a  b  c", " 1", " W "},
		{gamev1.Seat_SEAT_SECOND, "h  g  f", " 8", " B "},
	}
	for _, tt := range tests {
		screen := seated(tt.seat, &matchv1.Match{View: view}).View()
		lines := strings.Split(screen, "\n")
		var labels, bottom string
		for i, l := range lines {
			if strings.Contains(l, tt.files) {
				labels, bottom = l, lines[i-1]
			}
		}
		if labels == "" {
			t.Errorf("%v: no file labels %q:\n%s", tt.seat, tt.files, screen)
			continue
		}
		if !strings.HasPrefix(bottom, tt.bottomRank) || !strings.Contains(bottom[:8], strings.TrimSpace(tt.bottom)) {
			t.Errorf("%v: bottom row %q, want rank%s starting with %q", tt.seat, bottom, tt.bottomRank, tt.bottom)
		}
	}
}
