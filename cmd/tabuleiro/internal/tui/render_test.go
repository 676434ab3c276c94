package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

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
	var counts []*gamev1.BanqiPieceCount
	for p, n := range map[gamev1.BanqiPiece]int32{gamev1.BanqiPiece_BANQI_PIECE_RED_SOLDIER: 4, gamev1.BanqiPiece_BANQI_PIECE_BLACK_CHARIOT: 1, gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL: 1} {
		counts = append(counts, &gamev1.BanqiPieceCount{Piece: p, Count: n})
	}
	view := &gamev1.GameView{
		Game: gamev1.Game_GAME_BANQI, Variant: "standard", ToMove: gamev1.Seat_SEAT_SECOND, PlyCount: 3,
		Board: &gamev1.GameView_Banqi{Banqi: &gamev1.BanqiBoard{
			Cells: cells, Captured: []gamev1.BanqiPiece{gamev1.BanqiPiece_BANQI_PIECE_RED_SOLDIER},
			FirstColor: gamev1.BanqiColor_BANQI_COLOR_RED, FaceDownCounts: counts,
		}},
	}
	var plies []*gamev1.Ply
	for i := range 40 {
		plies = append(plies, &gamev1.Ply{Number: int32(i + 1), Notation: "a1"})
	}
	seats := []*matchv1.SeatState{
		{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_FIRST, PlayerId: "p_bruno", DisplayName: "Bruno"}},
		{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_SECOND, PlayerId: "p_ana", DisplayName: "Ana"}},
	}
	m := seated(gamev1.Seat_SEAT_SECOND, &matchv1.Match{View: view, Plies: plies, Seats: seats})
	m.status = "red played a1"
	screen := m.View()
	tests := []struct{ name, want string }{
		{"colour", "You play black"},
		{"captured, named by who captured them as the web does", "Captured by Ana: P"},
		{"revealed black chariot on c1", " r "},
		{"turn", "Your move (black)"},
		{"face down by kind, red (B6)", "K1 A0 B0 R0 N0 C0 P4"},
		{"face down by kind, black (B6)", "k0 a0 b0 r1 n0 c0 p0"},
		{"legend", "K general  A advisor  B elephant  R chariot"},
		{"legend's colours", "red upper case, black lower case"},
	}
	if n := len(strings.Split(screen, "\n")); n > 24 {
		t.Errorf("%d lines, want at most 24 (B1 legend and B6 counts included):\n%s", n, screen)
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

// The game screen fits an 80×24 terminal with a status line, so that the
// title never scrolls off: at most 24 lines of at most 80 columns.
func TestScreenFits80x24(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	m := seated(gamev1.Seat_SEAT_FIRST, f.snapshot())
	m.table.MatchID = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	m.table.Title = "vs Bot (easy)"
	m.status = "you have 2 unfinished games: tabuleiro play --resume"
	for i := range 40 { // a long move list
		m.plies = append(m.plies, &gamev1.Ply{Number: int32(i + 1), Notation: "e2"})
	}
	// Bubble Tea splits the view at every newline, a final one included,
	// and keeps the last 24 pieces.
	check := func(what string, want ...string) {
		t.Helper()
		screen := m.View()
		lines := strings.Split(screen, "\n")
		if len(lines) > 24 {
			t.Errorf("%s: %d lines, want at most 24:\n%s", what, len(lines), screen)
		}
		if !strings.HasPrefix(lines[0], "Quoridor") {
			t.Errorf("%s: first line %q, want the title", what, lines[0])
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w > 80 {
				t.Errorf("%s: line %d is %d columns wide: %q", what, i+1, w, l)
			}
		}
		for _, w := range want {
			if !strings.Contains(screen, w) {
				t.Errorf("%s: %q is not on the screen:\n%s", what, w, screen)
			}
		}
	}
	check("a status line", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	// A refusal of three lines (a ply that does not parse) keeps the title
	// and the whole refusal on the screen.
	m.status = "The ply zz cannot be read: character 1 (z) does not fit there. A ply is a square (e2), a wall (e3h, e3v), a path (c3-e5) or a capture (b2xb3). " + strings.Repeat("More words. ", 4) + "END"
	check("a status of three lines", "The ply zz", "END")
}

// Once the game is over, the turn marker no longer points at a seat.
func TestNoTurnMarkerAfterTheEnd(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	s := f.snapshot()
	s.Status = matchv1.MatchStatus_MATCH_STATUS_FINISHED
	s.Outcome = &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: gamev1.Seat_SEAT_SECOND, Reason: gamev1.Reason_REASON_RESIGNATION}
	playing := seated(gamev1.Seat_SEAT_FIRST, f.snapshot()).View()
	over := seated(gamev1.Seat_SEAT_FIRST, s).View()
	if !strings.Contains(playing, "◀") {
		t.Fatalf("no turn marker while playing:\n%s", playing)
	}
	if strings.Contains(over, "◀") || !strings.Contains(over, "Black wins by resignation") {
		t.Errorf("after the end:\n%s", over)
	}
}

// A name cut to the side panel's width ends in "…", and keeps a number at
// its end (what tells two local players' names apart).
func TestTruncKeepsTheNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Convidado KSON":          "Convidado KSON",
		"Convidado KSON 2":        "Convidado K… 2",
		"Ana Maria Albuquerque":   "Ana Maria Alb…",
		"Jogador 123456789012345": "Jogador 12345…",
	} {
		if got := trunc(in, 14); got != want {
			t.Errorf("trunc(%q, 14) = %q, want %q", in, got, want)
		}
	}
}
