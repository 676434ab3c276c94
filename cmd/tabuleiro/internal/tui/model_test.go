package tui

import (
	"fmt"
	"runtime"
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

func startOn(f *fakeMatch) Deps {
	started := false
	return Deps{Start: func(int) (*Table, error) {
		if started {
			return nil, errNoMore
		}
		started = true
		return f.table(), nil
	}}
}

var errNoMore = stringError("no more games")

type stringError string

func (e stringError) Error() string { return string(e) }

// A whole short Quoridor game played with the arrow keys and enter: the
// pawn's destinations are marked, and the pawn walks to its goal rank (Q4).
func TestQuoridorGameWithKeys(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "d9", "c9", "b9", "a9", "a8", "a7", "a6")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move (white)")
	for i := range 8 {
		rank := i + 2
		// The pawn's destinations are marked before each move (Q2.1).
		d.waitFor("destinations", func(s string) bool { return strings.Contains(s, "+") })
		d.key("up", "enter")
		if rank < 9 {
			d.waitFor("the opponent's reply", func(s string) bool {
				return strings.Contains(s, "Your move") && len(f.snapshot().GetPlies()) == 2*(i+1)
			})
		}
	}
	d.waitText("White (you) wins by goal")
	if id := d.m.(Model).Unfinished(); id != "" {
		t.Errorf("Unfinished() = %q after the game ended, want none", id)
	}
	screen := d.screen()
	for _, want := range []string{"1. e2", "8. e9", "Play again?", "match m1"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

// Plies typed in notation; an illegal one is refused with its rule and
// the game goes on.
func TestTypedPlies(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key(":", "type:e5", "enter")
	d.waitText("e5 refused")
	if !strings.Contains(d.screen(), "(Q2") {
		t.Errorf("refusal does not name the rule (Q2):\n%s", d.screen())
	}
	d.key(":", "type:e2", "enter")
	d.waitText("black played e8")
	if !strings.Contains(d.screen(), "1. e2         e8") {
		t.Errorf("move list lacks the first move:\n%s", d.screen())
	}
}

// A refusal answers one key: the next action (wall mode, a typed ply,
// esc) clears it instead of leaving it under a board it no longer fits.
func TestRefusalClearedByTheNextKey(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	for _, next := range [][]string{{"w"}, {"esc"}, {":", "esc"}} {
		d.key(":", "type:e5", "enter")
		d.waitText("e5 refused")
		d.key(next...)
		d.waitFor(fmt.Sprintf("the refusal gone after %q", next), func(s string) bool { return !strings.Contains(s, "e5 refused") })
	}
}

// Keys that arrive in one burst (a paste, a fast typist on a slow link)
// still open the prompt with the ply typed in.
func TestTypedPlyInOneBurst(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key(":e2", "enter")
	d.waitText("black played e8")
}

// The wall cursor previews whether a wall can be placed: legal, then
// overlapping the wall just placed (Q3.2), crossing it (Q3.3), and legal
// again one file to the right. The wall just placed is drawn, and the next
// turn starts in move mode (w again for a wall).
func TestWallPreview(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	if strings.Count(d.screen(), "[") != 1 {
		t.Errorf("move mode: want the square cursor's one [ … ]:\n%s", d.screen())
	}
	d.key("w")
	d.waitText("wall e1h: can be placed")
	// In wall mode the wall drawn at the cursor is the cursor: the square it
	// is anchored on is not bracketed too.
	if strings.Contains(d.screen(), "[") {
		t.Errorf("wall mode: the square cursor is drawn beside the wall:\n%s", d.screen())
	}
	d.key("enter")
	d.waitText("black played e8")
	if !strings.Contains(d.screen(), "━━━━━━━") {
		t.Errorf("the placed wall is not drawn:\n%s", d.screen())
	}
	if !strings.Contains(d.screen(), "walls  9") {
		t.Errorf("walls left not shown as 9:\n%s", d.screen())
	}
	d.waitFor("the pawn's destinations (move mode)", func(s string) bool { return strings.Contains(s, "+") })
	if strings.Contains(d.screen(), "wall e1h") {
		t.Errorf("still in wall mode after placing a wall:\n%s", d.screen())
	}
	// Wall mode starts on the nearest wall that can be placed (e2h, one
	// step up), not on e1h under the cursor.
	d.key("w")
	d.waitText("wall e2h: can be placed")
	d.key("down")
	d.waitText("wall e1h: cannot be placed")
	if !strings.Contains(d.screen(), "(Q3.2)") {
		t.Errorf("overlap does not cite Q3.2:\n%s", d.screen())
	}
	d.key("r")
	d.waitText("wall e1v: cannot be placed")
	if !strings.Contains(d.screen(), "(Q3.3)") {
		t.Errorf("crossing does not cite Q3.3:\n%s", d.screen())
	}
	d.key("enter") // refused locally: nothing is sent
	d.waitText("e1v cannot be placed")
	d.key("right")
	d.waitText("wall f1v: can be placed")
	d.key("esc")
	d.waitFor("wall mode off", func(s string) bool { return !strings.Contains(s, "wall f1v") })
}

func TestHelpAndQuit(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key("?")
	if !strings.Contains(d.screen(), "rotate the wall") {
		t.Errorf("help not shown:\n%s", d.screen())
	}
	d.key("?")
	d.waitText("Your move")
	// q during a game asks first and says how to come back.
	d.key("q")
	d.waitText("tabuleiro play --resume")
	// The opponent here is a person: staying away loses the game.
	if !strings.Contains(strings.Join(strings.Fields(d.screen()), " "), "lose by abandonment") {
		t.Errorf("the quit question does not say that leaving a person loses the game:\n%s", d.screen())
	}
	if d.quit {
		t.Fatal("q quit a game in progress without asking")
	}
	d.key("left")
	if d.quit || strings.Contains(d.screen(), "Quit?") {
		t.Fatalf("another key did not cancel the quit:\n%s", d.screen())
	}
	d.key("q", "y")
	d.waitFor("quit", func(string) bool { return d.quit })
	// The command prints how to come back once the screen is gone.
	if got := d.m.(Model).Unfinished(); got != "m1" {
		t.Errorf("Unfinished() = %q after quitting a game in progress, want its match m1", got)
	}
}

// q with the help open closes the help, as ? and esc do (the help's last
// line says so): it neither quits nor asks to, during a game or after it.
func TestQClosesHelp(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key("?")
	d.waitText("rotate the wall")
	if !strings.Contains(d.screen(), "q closes the help") {
		t.Errorf("the help's last line does not say that q closes it:\n%s", d.screen())
	}
	d.key("q")
	d.waitText("Your move")
	if d.quit || strings.Contains(d.screen(), "Quit?") || strings.Contains(d.screen(), "rotate the wall") {
		t.Fatalf("q with the help open did not just close the help (quit %v):\n%s", d.quit, d.screen())
	}
	// The next q is the game's: it asks first.
	d.key("q")
	d.waitText("tabuleiro play --resume")

	// After the game q quits at once, but with the help open it closes the help.
	f = newFakeMatch(t)
	<-f.out // replace the opening snapshot with a finished match's
	s := f.snapshot()
	s.Status = matchv1.MatchStatus_MATCH_STATUS_FINISHED
	s.Outcome = &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: gamev1.Seat_SEAT_FIRST, Reason: gamev1.Reason_REASON_RESIGNATION}
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: s}}
	d = newDriver(t, New(startOn(f)))
	d.waitText("q: quit")
	d.key("?")
	d.waitText("rotate the wall")
	d.key("q")
	d.waitText("q: quit")
	if d.quit {
		t.Fatal("q with the help open after the game quit")
	}
	d.key("q")
	d.waitFor("quit", func(string) bool { return d.quit })
}

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

// With a clock, before the first ply the side panel says why the clocks
// stand still.
func TestClocksStartWithFirstPly(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	<-f.out
	s := f.snapshot()
	s.Clocks = &gamev1.ClockState{FirstRemainingMs: 60000, SecondRemainingMs: 60000}
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: s}}
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	if !strings.Contains(d.screen(), "clocks start with the first ply") {
		t.Errorf("no word on the standing clocks:\n%s", d.screen())
	}
	d.waitFor("destinations", func(s string) bool { return strings.Contains(s, "+") })
	d.key("up", "enter")
	d.waitFor("the first ply", func(s string) bool { return !strings.Contains(s, "clocks start") })
}

// At one keyboard there is nobody to offer a draw to: the help leaves the
// draw keys out, and d sends nothing.
func TestNoDrawOfferAtOneKeyboard(t *testing.T) {
	t.Parallel()
	m := New(Deps{})
	m.view = &gamev1.GameView{Game: gamev1.Game_GAME_QUORIDOR}
	m.table = &Table{Seats: map[gamev1.Seat]Conn{gamev1.Seat_SEAT_FIRST: nil, gamev1.Seat_SEAT_SECOND: nil}}
	help := m.helpText()
	if strings.Contains(help, "offer a draw") || strings.Contains(help, "draw offer") {
		t.Errorf("help at one keyboard offers draws:\n%s", help)
	}
	if !strings.Contains(help, "resign") || !strings.Contains(help, "decline the rematch") {
		t.Errorf("help at one keyboard lost other keys:\n%s", help)
	}
	if _, cmd := m.playKey("d"); cmd != nil {
		t.Error("d at one keyboard sends something")
	}
	m.table.Seats = map[gamev1.Seat]Conn{gamev1.Seat_SEAT_FIRST: nil}
	if strings.Contains(m.helpText(), "offer a draw") {
		t.Error("help in Quoridor, which has no draw offers, offers a draw")
	}
	if _, cmd := m.playKey("d"); cmd != nil {
		t.Error("d in Quoridor sends something")
	}
	m.view = &gamev1.GameView{Game: gamev1.Game_GAME_BANQI}
	if !strings.Contains(m.helpText(), "offer a draw") {
		t.Error("help against an opponent in Banqi lacks the draw offer")
	}
}

// Keys typed while the game is being started (before the board is shown)
// are dropped, not replayed as cursor moves or actions once it appears:
// the cursor starts on the person's pawn, no wall mode, no prompt.
func TestKeysBeforeTheBoardDropped(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	snap := <-f.out // the stream answers only once released below
	release := make(chan struct{})
	d := newDriver(t, New(Deps{Start: func(int) (*Table, error) {
		<-release
		return f.table(), nil
	}}))
	d.waitText("Starting the game")
	d.key("left", "left", "up", "type:hhw", ":e2")
	close(release)
	d.waitFor("the table", func(string) bool { return d.m.(Model).table != nil })
	d.key("right", "type:ll", "w", "up")
	f.out <- snap
	d.waitText("Your move (white)")
	m := d.m.(Model)
	if home := m.homeSquare(); m.cursor != home || m.wallMode || m.typing {
		t.Errorf("cursor %v (home %v), wall mode %v, typing %v: keys typed before the board were replayed", m.cursor, home, m.wallMode, m.typing)
	}
}

// fatalTB records a Fatalf and stops its goroutine, as testing.T does,
// without failing the test that uses it.
type fatalTB struct {
	testing.TB
	msg chan string
}

func (f fatalTB) Helper() {}

func (f fatalTB) Fatalf(format string, args ...any) {
	f.msg <- fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A screen that never comes fails the wait with the last screen shown,
// once the wait's bound is past, not at the test's deadline.
func TestWaitForGivesUpWithTheLastScreen(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	tb := fatalTB{TB: t, msg: make(chan string, 1)}
	d := newDriver(tb, New(Deps{Start: func(int) (*Table, error) {
		<-release
		return nil, errNoMore
	}}))
	d.wait = 10 * time.Millisecond
	go d.waitText("Your move")
	if msg := <-tb.msg; !strings.Contains(msg, "no Your move within") || !strings.Contains(msg, "Starting the game") {
		t.Errorf("failure message %q, want what was awaited and the last screen", msg)
	}
}

// wallTo moves the wall cursor to w with the arrows and r, as a person
// would, and waits for its preview.
func (d *driver) wallTo(w wall) {
	d.t.Helper()
	for {
		// Each step waits for its preview: the first may move the
		// cursor (wall mode starts on a legal wall).
		d.waitFor("the preview of the wall under the cursor", func(string) bool {
			m := d.m.(Model)
			return m.check != nil && m.checkKey == m.wallKey()
		})
		m := d.m.(Model)
		switch {
		case m.cursor.file < w.at.file:
			d.key("right")
		case m.cursor.file > w.at.file:
			d.key("left")
		case m.cursor.rank < w.at.rank:
			d.key("up")
		case m.cursor.rank > w.at.rank:
			d.key("down")
		case m.wallH != w.horizontal:
			d.key("r")
		default:
			return
		}
	}
}

// A wall refused in the preview says why once, in a sentence that fits
// the terminal: "wall e1h: cannot be placed, that wall is already on the
// board (Q3.2)", not "…, illegal ply e1h: the wall overlaps the wall e1h
// (Q3.3" cut at the terminal's edge. The fake's reasons are match.v1's
// (the engine's whole error).
func TestWallRefusalSaidOnce(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.handle(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.waitText("Your move")
	d.key(":", "type:e1h", "enter")
	d.waitText("black played e8")
	d.key("w")
	d.wallTo(wall{square{4, 0}, true})
	d.waitText("cannot be placed")
	const want = "wall e1h: cannot be placed, that wall is already on the board (Q3.2)"
	screen := d.screen()
	for _, l := range strings.Split(screen, "\n") {
		if w := lipgloss.Width(l); w > 100 {
			t.Errorf("a line of %d columns on a terminal of 100: %q", w, l)
		}
		if strings.Contains(l, "cannot be placed") && (!strings.Contains(l, want) || strings.Count(l, "e1h") != 1) {
			t.Errorf("the preview says %q, want %q", l, want)
		}
	}
	// On a narrow terminal the sentence wraps at a space, whole.
	d.handle(tea.WindowSizeMsg{Width: 50, Height: 30})
	lines := strings.Split(d.screen(), "\n")
	for i, l := range lines {
		if strings.Contains(l, "Your move") {
			for _, l := range lines[i : i+2] {
				if w := lipgloss.Width(l); w > 50 || strings.HasSuffix(l, " ") {
					t.Errorf("a line of the preview of %d columns on a terminal of 50: %q", w, l)
				}
			}
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(d.screen()), " "), want) {
		t.Errorf("the wrapped preview lacks %q:\n%s", want, d.screen())
	}
	d.key("enter") // refused here: the turn line says why, the status what to do
	d.waitText("e1h cannot be placed: move it")
	if n := strings.Count(d.screen(), "already on the board"); n != 1 {
		t.Errorf("the reason is shown %d times, want once:\n%s", n, d.screen())
	}
}

// Entering wall mode never starts on a wall that cannot be placed: the
// wall cursor goes to the nearest legal wall (the fewest steps and
// turns), here e2h beside e1h and its crossing e1v; moved, it stays
// where it is put, legal or not.
func TestWallModeStartsOnALegalWall(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8", "d8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key(":", "type:e1h", "enter")
	d.waitText("black played e8")
	d.key("w")
	d.waitFor("a checked wall", func(string) bool {
		m := d.m.(Model)
		return m.check != nil && m.checkKey == m.wallKey()
	})
	if m := d.m.(Model); !m.check.GetLegal() || (wall{m.cursor, m.wallH}).String() != "e2h" {
		t.Errorf("wall mode starts on %s (legal %v), want e2h:\n%s", (wall{m.cursor, m.wallH}), m.check.GetLegal(), d.screen())
	}
	d.waitText("wall e2h: can be placed")
	// Moved onto an illegal wall, the cursor stays there.
	d.key("down")
	d.waitText("wall e1h: cannot be placed")
	d.key("esc", "w")
	d.waitText("wall e2h: can be placed")
	// Turned before the answer came: the person's choice stands.
	d.key("esc", "down", "w", "r")
	d.waitText("wall e1v: cannot be placed")
}

// A wall placed with the keys puts the square cursor back on the pawn (the
// pawn shows as selected, and Enter acts where the cursor is): it does not
// stay on the wall's anchor square.
func TestCursorBackOnPawnAfterWall(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8", "d8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key(":e2", "enter")
	d.waitText("black played e8")
	d.key("w")
	d.wallTo(wall{square{4, 6}, true}) // e7h
	d.key("enter")
	d.waitText("black played d8")
	d.waitFor("the cursor back on the pawn (e2)", func(string) bool {
		m := d.m.(Model)
		return !m.wallMode && m.cursor == square{4, 1}
	})
	if got := d.m.(Model).cursor; got != (square{4, 1}) {
		t.Errorf("cursor on %s after the wall, want the pawn's e2:\n%s", got, d.screen())
	}
}

// A wall that would shut the player's own pawn in is refused in the
// player's words: "your pawn", not the engine's "white's pawn" (which the
// engine keeps for everyone else), in the preview and on Enter.
func TestRefusalSaysYourPawn(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8", "e7")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key(":d1v", "enter")
	d.waitText("black played e8")
	d.key(":e1h", "enter")
	d.waitText("black played e7")
	d.key("w")
	d.wallTo(wall{square{5, 0}, false})                                      // f1v: e1 and f1 boxed in
	d.waitText("wall f1v: cannot be placed, the wall would leave your pawn") // (the line wraps after it)
	d.key("esc", ":f1v", "enter")
	d.waitText("f1v refused: the wall would leave your pawn")
	if strings.Contains(d.screen(), "white's pawn") {
		t.Errorf("the player's own pawn is called white's:\n%s", d.screen())
	}
}

// A pawn move typed in notation puts the cursor on the pawn's new square,
// as a move made with the arrows and Enter leaves it there.
func TestCursorFollowsTypedPawnMove(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key(":e2", "enter")
	d.waitText("black played e8")
	if got := d.m.(Model).cursor; got != (square{4, 1}) {
		t.Errorf("cursor on %s after typing e2, want the pawn's e2:\n%s", got, d.screen())
	}
}

// cornersAt starts a Corners game at encoding (white to move, this
// terminal white) and waits for the person's turn.
func cornersAt(t *testing.T, encoding string) (*fakeCorners, *driver) {
	t.Helper()
	f := newFakeCorners(t, encoding)
	d := newDriver(t, New(Deps{Start: func(int) (*Table, error) { return f.table(), nil }}))
	d.waitText("Your move (white)")
	return f, d
}

// Positions of classic-3x3 with white to move, its pieces all out of its
// home (a1-c3): on move 41, after the leave-home deadline of move 40, and
// on move 40 itself. From d3: c3 (home), e3, d4, and d1 over d2; from d2:
// b2 (home) over c2.
const (
	cornersMove41 = "classic-3x3 w 80 e1,f1,g1,h1,d2,d3,e4,f4,g4 c2,b3,e6,a7,b7,c7,d7,a8,b8 - ongoing"
	cornersMove40 = "classic-3x3 w 78 e1,f1,g1,h1,d2,d3,e4,f4,g4 c2,b3,e6,a7,b7,c7,d7,a8,b8 - ongoing"
)

// returnHomeAsked is the confirmation's words (C5.2).
const returnHomeAsked = "returns home after move 40 and loses (C5.2): y plays it, other keys cancel"

// selectD3 moves the cursor from the board's middle (e5) to d3 and
// selects the piece there, waiting for its destinations.
func selectD3(d *driver) {
	d.t.Helper()
	d.key("left", "down", "down", "enter")
	d.waitFor("d3's destinations", func(s string) bool { return strings.Contains(s, "+") })
}

// askedOrPlayed waits for the confirmation, or for the ply to have gone
// to the server all the same (the game lost, or the opponent to move).
func askedOrPlayed(d *driver) {
	d.t.Helper()
	d.waitFor("the confirmation or the ply played", func(s string) bool {
		return strings.Contains(s, returnHomeAsked) || strings.Contains(s, "wins by") || strings.Contains(s, "Waiting for")
	})
}

// cellText returns the three characters that draw square sq (white's
// view of an 8×8 board: rank labels in the first three columns).
func cellText(t *testing.T, screen, sq string) string {
	t.Helper()
	at, ok := parseSquare(sq)
	if !ok {
		t.Fatalf("bad square %q", sq)
	}
	for l := range strings.SplitSeq(screen, "\n") {
		if strings.HasPrefix(l, fmt.Sprintf("%2d ", at.rank+1)) {
			r := []rune(l)
			return string(r[3+3*at.file : 6+3*at.file])
		}
	}
	t.Fatalf("no row for %s:\n%s", sq, screen)
	return ""
}

// C5.2 by the cursor: after the deadline the selected piece's target in
// its own home is marked apart from the others ("!", not "+"), and
// choosing it asks first; y plays it, and the game is lost.
func TestCornersReturnHomeAsksByCursor(t *testing.T) {
	t.Parallel()
	f, d := cornersAt(t, cornersMove41)
	d.key("?")
	if !strings.Contains(d.screen(), "home after the deadline loses, C5.2: marked !, asks for y") {
		t.Errorf("the help does not say how a ply back home is marked and asked:\n%s", d.screen())
	}
	d.key("?")
	selectD3(d)
	for sq, want := range map[string]string{"c3": " ! ", "e3": " + ", "d4": " + ", "d1": " + "} {
		if got := cellText(t, d.screen(), sq); got != want {
			t.Errorf("%s drawn %q, want %q (! marks a target that loses, C5.2):\n%s", sq, got, want, d.screen())
		}
	}
	d.key("left", "enter")
	askedOrPlayed(d)
	if !strings.Contains(d.screen(), "d3-c3 "+returnHomeAsked) {
		t.Fatalf("d3-c3 chosen with the cursor: no confirmation:\n%s", d.screen())
	}
	if n := f.played(); n != 0 {
		t.Fatalf("%d plies sent before the confirmation, want none", n)
	}
	d.key("y")
	d.waitText("Black wins by return home: you lost")
}

// C5.2 typed with ':': a jump chain that ends at home (d2 over c2 to b2)
// asks first too; y plays it.
func TestCornersReturnHomeAsksTyped(t *testing.T) {
	t.Parallel()
	f, d := cornersAt(t, cornersMove41)
	d.key(":", "type:d2-b2", "enter")
	askedOrPlayed(d)
	if !strings.Contains(d.screen(), "d2-b2 "+returnHomeAsked) {
		t.Fatalf("d2-b2 typed: no confirmation:\n%s", d.screen())
	}
	if n := f.played(); n != 0 {
		t.Fatalf("%d plies sent before the confirmation, want none", n)
	}
	d.key("y")
	d.waitText("Black wins by return home: you lost")
}

// Any key but y cancels the confirmation: nothing is sent, the question
// goes, the piece stays, and it is still the person's move.
func TestCornersReturnHomeCancelled(t *testing.T) {
	t.Parallel()
	f, d := cornersAt(t, cornersMove41)
	for _, tt := range []struct {
		name   string
		choose []string
		cancel string
	}{
		{"cursor, n", []string{"left", "enter"}, "n"},
		{"typed, esc", []string{":", "type:d3-c3", "enter"}, "esc"},
		{"typed, x", []string{":", "type:d3-c3", "enter"}, "x"},
	} {
		if tt.choose[0] == "left" {
			selectD3(d)
		}
		d.key(tt.choose...)
		askedOrPlayed(d)
		if !strings.Contains(d.screen(), returnHomeAsked) {
			t.Fatalf("%s: no confirmation:\n%s", tt.name, d.screen())
		}
		d.key(tt.cancel)
		screen := d.screen()
		m := d.m.(Model)
		switch {
		case strings.Contains(screen, returnHomeAsked):
			t.Errorf("%s: the question stays after %q:\n%s", tt.name, tt.cancel, screen)
		case m.pending != 0 || f.played() != 0:
			t.Fatalf("%s: a ply was sent after %q (pending %d, played %d)", tt.name, tt.cancel, m.pending, f.played())
		case !strings.Contains(screen, "Your move (white)"):
			t.Errorf("%s: not the person's move after cancelling:\n%s", tt.name, screen)
		}
		if got := cellText(t, screen, "d3"); !strings.Contains(got, "W") {
			t.Errorf("%s: d3 drawn %q after cancelling, want the piece still there", tt.name, got)
		}
		if tt.cancel == "n" {
			d.key("esc") // drop the selection
		}
	}
	// The game goes on: an ordinary ply afterwards plays at once.
	d.key(":", "type:d3-e3", "enter")
	d.waitText("Waiting for Script")
	if n := f.played(); n != 1 {
		t.Errorf("%d plies played, want d3-e3 alone", n)
	}
}

// An ordinary ply is played without a question: a step out of home after
// the deadline, and a step into home on the deadline's move itself (C5.2
// starts after it).
func TestCornersOrdinaryPlyNotAsked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, encoding string
		keys           []string
	}{
		{"move 41, d3-e3 by the cursor", cornersMove41, []string{"right", "enter"}},
		{"move 41, d3-d1 typed", cornersMove41, []string{":", "type:d3-d1", "enter"}},
		{"move 40, d3-c3 by the cursor", cornersMove40, []string{"left", "enter"}},
		{"move 40, d3-c3 typed", cornersMove40, []string{":", "type:d3-c3", "enter"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, d := cornersAt(t, tt.encoding)
			if tt.keys[0] != ":" {
				selectD3(d)
				if tt.encoding == cornersMove40 && strings.Contains(d.screen(), "!") {
					t.Errorf("a target marked as losing on move 40:\n%s", d.screen())
				}
			}
			d.key(tt.keys...)
			askedOrPlayed(d)
			if strings.Contains(d.screen(), returnHomeAsked) {
				t.Fatalf("asked about an ordinary ply:\n%s", d.screen())
			}
			d.waitText("Waiting for Script")
			if n := f.played(); n != 1 {
				t.Errorf("%d plies played, want 1", n)
			}
		})
	}
}
