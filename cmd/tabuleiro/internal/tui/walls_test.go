package tui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

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
