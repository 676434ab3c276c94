package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// keypadEnter is how Bubble Tea v1 reads the keypad's Enter of a terminal
// in application keypad mode (ESC O M): alt+O, then M.
var keypadEnter = []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'O'}, Alt: true}, {Type: tea.KeyRunes, Runes: []rune{'M'}}}

// The keypad's Enter plays in the game as Enter does: on a marked square
// and at the end of a typed ply. An alt+O that is not followed by M does
// not take the key after it.
func TestKeypadEnterInTheGame(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8", "e7")
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.waitFor("destinations", func(s string) bool { return strings.Contains(s, "+") })
	d.handle(keypadEnter[0])
	d.key("up")
	for _, k := range keypadEnter {
		d.handle(k)
	}
	d.waitText("black played e8")
	d.key(":", "type:e3")
	for _, k := range keypadEnter {
		d.handle(k)
	}
	d.waitText("black played e7")
	if s := d.screen(); !strings.Contains(s, "1. e2         e8") || !strings.Contains(s, "2. e3         e7") {
		t.Errorf("move list lacks the plies played with the keypad's Enter:\n%s", s)
	}
}

// syncBuffer is a bytes.Buffer safe for Bubble Tea's renderer and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The bytes of the keypad's Enter (ESC O M), read by a real Bubble Tea
// program from its input, resume the game offered and then play the
// pawn to the marked square under the cursor.
func TestKeypadEnterBytes(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	deps := startOn(f)
	deps.Active = []*lobbyv1.MatchSummary{{MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"}}
	resumed := make(chan string, 1)
	deps.Resume = func(id string) (*Table, error) { resumed <- id; return f.table(), nil }
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	in, keys := io.Pipe()
	defer keys.Close()
	var out syncBuffer
	p := tea.NewProgram(New(deps), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(&out), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		<-done
	}()
	waitOut := func(text string) {
		t.Helper()
		for !strings.Contains(out.String(), text) {
			select {
			case <-ctx.Done():
				t.Fatalf("no %q on the screen; the output:\n%s", text, out.String())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	write := func(s string) {
		t.Helper()
		if _, err := io.WriteString(keys, s); err != nil {
			t.Fatal(err)
		}
	}
	waitOut("enter: resume it")
	write("\x1bOM")
	select {
	case id := <-resumed:
		if id != "m1" {
			t.Errorf("resumed %q, want m1", id)
		}
	case <-ctx.Done():
		t.Fatalf("the keypad's Enter did not resume the game offered; the output:\n%s", out.String())
	}
	waitOut("Your move")
	write("k")
	write("\x1bOM")
	waitOut("black played e8")
}

// The quit question fits a narrow terminal: it wraps at spaces, a
// command line's path longer than the line breaks after a slash, and the
// answer (y quits) stays whole on a line of its own.
func TestQuitQuestionWraps(t *testing.T) {
	t.Parallel()
	path := "/home/ana.lima/.local/share/tabuleiro-second-player"
	hint := "`tabuleiro play --resume --server games.example.org:7443 --data-dir " + path + "`"
	for _, width := range []int{60, 40} {
		f := newFakeMatch(t)
		deps := startOn(f)
		deps.ResumeHint, deps.Online = hint, true
		d := newDriver(t, New(deps))
		d.handle(tea.WindowSizeMsg{Width: width, Height: 40})
		d.waitText("Your move")
		d.key("q")
		d.waitText("Quit?")
		screen := d.screen()
		lines := strings.Split(screen, "\n")
		var question []string
		for i, l := range lines {
			if strings.HasPrefix(l, "Quit?") {
				question = lines[i : len(lines)-1] // up to the footer
				break
			}
		}
		answer := false
		for _, l := range question {
			if w := lipgloss.Width(l); w > width {
				t.Errorf("width %d: a line of the question is %d columns wide: %q", width, w, l)
			}
			if l != strings.TrimSpace(l) {
				t.Errorf("width %d: a line of the question starts or ends with a space: %q", width, l)
			}
			if l == "y quits, any other key stays." {
				answer = true
			}
		}
		if !answer {
			t.Errorf("width %d: the answer is not whole on a line of its own:\n%s", width, strings.Join(question, "\n"))
		}
		// Every word that fits a line is whole on one.
		words := map[string]bool{}
		for _, l := range question {
			for _, w := range strings.Fields(l) {
				words[w] = true
			}
		}
		for _, w := range strings.Fields(hint + " soon: against a person you lose by abandonment") {
			if lipgloss.Width(w) <= width && !words[w] {
				t.Errorf("width %d: %q is split:\n%s", width, w, strings.Join(question, "\n"))
			}
		}
		// The path, longer than a 40-column line, breaks after a slash.
		joined := strings.Join(question, "\n")
		var flat strings.Builder
		var breaks []int // where the lines break in flat
		for i, l := range question {
			if i > 0 {
				breaks = append(breaks, flat.Len())
			}
			flat.WriteString(l)
		}
		start := strings.Index(flat.String(), path)
		if start < 0 {
			t.Errorf("width %d: the path is not there whole:\n%s", width, joined)
		}
		for _, b := range breaks {
			if start >= 0 && b > start && b < start+len(path) && flat.String()[b-1] != '/' {
				t.Errorf("width %d: the path breaks inside a name, before %q:\n%s", width, flat.String()[b:start+len(path)], joined)
			}
		}
	}
}

// Enter on a square before the pawn's destinations arrive (a fast key
// after the position changed) sends the step for the server to judge: a
// legal one plays, an illegal one comes back with the server's reason.
func TestEnterBeforeDestinations(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	tab := f.table()
	gate := make(chan struct{})
	tab.Legal = func(req *matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error) {
		<-gate
		return f.legal(req)
	}
	defer close(gate)
	d := newDriver(t, New(Deps{Start: func(int) (*Table, error) { return tab, nil }}))
	d.waitText("Your move")
	d.key("up", "up", "enter")
	d.waitText("e3 refused")
	d.key("down", "enter")
	d.waitText("black played e8")
	if strings.Contains(d.screen(), "+") {
		t.Errorf("destinations drawn although none arrived:\n%s", d.screen())
	}
}
