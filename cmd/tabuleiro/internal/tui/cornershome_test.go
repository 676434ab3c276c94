package tui

import (
	"fmt"
	"strings"
	"testing"
)

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
	if !strings.Contains(d.screen(), "C5.2; it is marked ! and asks for y to confirm") {
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
