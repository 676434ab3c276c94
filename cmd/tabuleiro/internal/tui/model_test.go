package tui

import (
	"fmt"
	"strings"
	"testing"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
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
// Keys other than ?, esc and q do nothing while the help is shown: the
// board is hidden behind it (a new player's Up, Enter there moved the pawn,
// and w, r, Enter placed a wall they never saw).
func TestHelpIgnoresBoardKeys(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.key("?")
	d.waitText("rotate the wall")
	d.key("up", "enter", "w", "r", "enter", ":e2", "enter")
	d.key("esc")
	d.waitText("Your move")
	f.mu.Lock()
	plies := f.pos.Plies()
	f.mu.Unlock()
	if plies != 0 {
		t.Fatalf("keys pressed with the help open played %d plies:\n%s", plies, d.screen())
	}
	if strings.Contains(d.screen(), "wall e") {
		t.Errorf("w with the help open turned wall mode on:\n%s", d.screen())
	}
	// Closed, the same keys play.
	d.key("up", "enter")
	d.waitText("black played e8")
}

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
