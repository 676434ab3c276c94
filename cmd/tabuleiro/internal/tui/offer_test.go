package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// An unfinished game is offered first; r resumes it.
func TestResumeOffer(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	deps := startOn(f)
	deps.Active = []*lobbyv1.MatchSummary{{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", PlyCount: 0}}
	var resumed string
	deps.Resume = func(id string) (*Table, error) { resumed = id; return f.table(), nil }
	d := newDriver(t, New(deps))
	d.waitText("unfinished game")
	d.key("r")
	d.waitText("Your move")
	if resumed != "m1" {
		t.Errorf("resumed %q, want m1", resumed)
	}
}

// With one unfinished game offered, Enter resumes it, whichever Enter
// the terminal sends (CR, LF as Ctrl-J, or the keypad's Enter in
// application keypad mode, ESC O M, which Bubble Tea reads as alt+O then
// M), and so does space; the footer says Enter.
func TestResumeOfferEnter(t *testing.T) {
	t.Parallel()
	for name, keys := range map[string][]tea.KeyMsg{
		"enter":        {{Type: tea.KeyEnter}},
		"ctrl+j":       {{Type: tea.KeyCtrlJ}},
		"space":        {{Type: tea.KeySpace, Runes: []rune{' '}}},
		"keypad enter": keypadEnter,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFakeMatch(t)
			deps := startOn(f)
			deps.Active = []*lobbyv1.MatchSummary{{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"}}
			var resumed string
			deps.Resume = func(id string) (*Table, error) { resumed = id; return f.table(), nil }
			d := newDriver(t, New(deps))
			d.waitText("unfinished game")
			if s := d.screen(); !strings.Contains(s, "enter: resume") {
				t.Errorf("the footer does not name Enter:\n%s", s)
			}
			for _, k := range keys {
				d.handle(k)
			}
			d.waitText("Your move")
			if resumed != "m1" {
				t.Errorf("resumed %q, want m1", resumed)
			}
		})
	}
}

func TestClockCountsDown(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	m := New(Deps{Now: func() time.Time { return now }})
	m.phase = phasePlaying
	m.setClocks(&gamev1.ClockState{FirstRemainingMs: 65_000, SecondRemainingMs: 9_500, Running: gamev1.Seat_SEAT_FIRST})
	now = now.Add(2500 * time.Millisecond)
	tests := []struct {
		seat gamev1.Seat
		want string
	}{
		{gamev1.Seat_SEAT_FIRST, "1:02"},
		{gamev1.Seat_SEAT_SECOND, "9.5"},
	}
	for _, tt := range tests {
		if got := clockText(nil, m.remaining(tt.seat)); got != tt.want {
			t.Errorf("%v: clock %q, want %q", tt.seat, got, tt.want)
		}
	}
}

// A game resumed after it ended while the terminal was away (abandoned,
// or a flag fell) shows its result and reason, not an empty one.
func TestResumedGameAlreadyOver(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	<-f.out // replace the opening snapshot with the finished match's
	s := f.snapshot()
	s.Status = matchv1.MatchStatus_MATCH_STATUS_FINISHED
	s.Outcome = &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: gamev1.Seat_SEAT_SECOND, Reason: gamev1.Reason_REASON_ABANDONMENT}
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: s}}
	deps := startOn(f)
	deps.Active = []*lobbyv1.MatchSummary{{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"}}
	deps.Resume = func(string) (*Table, error) { return f.table(), nil }
	d := newDriver(t, New(deps))
	d.key("r")
	d.waitText("Black wins by abandonment")
	if s := d.screen(); !strings.Contains(s, "ended while you were away") {
		t.Errorf("screen does not say the game ended meanwhile:\n%s", s)
	}
	if r := d.m.(Model).Result(); r != "Black wins by abandonment: you lost" {
		t.Errorf("result %q", r)
	}
}

// While a game is being started, a notice (a room's invite code) replaces
// the bare "Starting the game…".
func TestNoticeWhileStarting(t *testing.T) {
	t.Parallel()
	m, _ := New(Deps{}).Update(Notice("Room open: invite code K7MX2QPD"))
	screen := m.View()
	if !strings.Contains(screen, "invite code K7MX2QPD") || strings.Contains(screen, "Starting the game") {
		t.Errorf("screen while waiting for a friend:\n%s", screen)
	}
}

// Several unfinished games are offered under a plural heading.
func TestResumeOfferPlural(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	deps := startOn(f)
	deps.Resume = func(string) (*Table, error) { return f.table(), nil }
	deps.Active = []*lobbyv1.MatchSummary{
		{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"},
		{MatchId: "m2", Game: gamev1.Game_GAME_BANQI, Variant: "standard"},
	}
	if s := New(deps).View(); !strings.Contains(s, "You have 2 unfinished games\n") {
		t.Errorf("offer heading:\n%s", s)
	}
}

// The resume list fits the terminal: a long entry wraps under itself,
// whole, instead of being cut at 80 columns.
func TestResumeOfferWraps(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	deps := startOn(f)
	deps.Resume = func(string) (*Table, error) { return f.table(), nil }
	now := time.Now()
	deps.Now = func() time.Time { return now }
	deps.Active = []*lobbyv1.MatchSummary{{
		MatchId: "m1", Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x4", PlyCount: 123,
		YourSeat: gamev1.Seat_SEAT_FIRST, ToMove: gamev1.Seat_SEAT_FIRST, StartedAt: timestamppb.New(now.Add(-3 * time.Hour)),
		Participants: []*gamev1.Participant{{DisplayName: "Ana Lima Rodrigues Sá"}, {DisplayName: "Bernardo Teixeira 2"}},
	}}
	for _, width := range []int{80, 50} {
		m := New(deps)
		m.width = width
		screen := m.View()
		for i, l := range strings.Split(screen, "\n") {
			if w := lipgloss.Width(l); w > width {
				t.Errorf("width %d: line %d is %d columns wide: %q", width, i+1, w, l)
			}
		}
		joined := strings.Join(strings.Fields(screen), " ")
		if !strings.Contains(joined, "Ana Lima Rodrigues Sá vs Bernardo Teixeira 2, 123 plies, your move, started 3 h ago") {
			t.Errorf("width %d: the entry is not there whole:\n%s", width, screen)
		}
	}
}

// A game asked for on the command line starts at once; the unfinished
// games are only mentioned on the status line.
func TestReminderOnStart(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	deps := startOn(f)
	deps.Reminder = "you have 2 unfinished games: tabuleiro play --resume"
	d := newDriver(t, New(deps))
	d.waitText("Your move")
	if s := d.screen(); !strings.Contains(s, deps.Reminder) {
		t.Errorf("screen lacks the reminder:\n%s", s)
	}
}

// The reminder of the other unfinished games stays on the status line
// until the person's first key: an opponent who moves first (a bot whose
// ply comes after the board is up) does not replace it, the move list
// shows that ply. The person's first key clears it like any notice.
func TestReminderOutlastsTheOpponentsFirstPly(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	reminder := "you have another unfinished game: tabuleiro play --resume"
	d := newDriver(t, New(Deps{Reminder: reminder, Start: func(int) (*Table, error) {
		tb := f.table()
		tb.Seats = map[gamev1.Seat]Conn{gamev1.Seat_SEAT_SECOND: f} // the person plays black
		return tb, nil
	}}))
	d.waitText("Waiting for Ana")
	if !strings.Contains(d.screen(), reminder) {
		t.Fatalf("the board opens without the reminder:\n%s", d.screen())
	}
	f.mu.Lock()
	f.play("e2") // white, the opponent, moves first
	f.mu.Unlock()
	d.waitText("1. e2")
	if s := d.screen(); !strings.Contains(s, reminder) {
		t.Errorf("the opponent's first ply took the reminder off the screen:\n%s", s)
	}
	d.key("left")
	if s := d.screen(); strings.Contains(s, reminder) {
		t.Errorf("the reminder outlasts the person's first key:\n%s", s)
	}
}

// Errors show a gRPC status's message, not gRPC's "rpc error: code = …".
func TestErrText(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("join room K7MX: %w", status.Error(codes.NotFound, "invite code: not found"))
	if got, want := ErrText(err), "join room K7MX: invite code: not found"; got != want {
		t.Errorf("ErrText = %q, want %q", got, want)
	}
}

// The resume list says whose turn it is and how long ago each game began.
func TestResumeListTurnAndAge(t *testing.T) {
	t.Parallel()
	now := time.Unix(100000, 0)
	deps := Deps{Now: func() time.Time { return now }, Resume: func(string) (*Table, error) { return nil, errNoMore }}
	deps.Active = []*lobbyv1.MatchSummary{
		{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", YourSeat: gamev1.Seat_SEAT_FIRST,
			ToMove: gamev1.Seat_SEAT_FIRST, StartedAt: timestamppb.New(now.Add(-3 * time.Hour))},
		{MatchId: "m2", Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", YourSeat: gamev1.Seat_SEAT_SECOND,
			ToMove: gamev1.Seat_SEAT_FIRST, StartedAt: timestamppb.New(now.Add(-5 * time.Minute))},
	}
	s := New(deps).View()
	for _, want := range []string{"your move, started 3 h ago", "their move, started 5 min ago"} {
		if !strings.Contains(s, want) {
			t.Errorf("resume list lacks %q:\n%s", want, s)
		}
	}
}
