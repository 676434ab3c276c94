package play

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// ptyScreen collects what a command writes to a pseudo-terminal.
type ptyScreen struct {
	mu  sync.Mutex
	out bytes.Buffer
}

// ansi matches the escape sequences of the screen's drawing.
var ansi = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>NOM78])`)

// since returns the text written after byte offset from, without escape
// sequences, and the offset of its end.
func (s *ptyScreen) since(from int) (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.out.Bytes()
	return ansi.ReplaceAllString(string(b[from:]), ""), len(b)
}

// playInPTY runs `tabuleiro args…` with a pseudo-terminal of 100x30 as its
// standard input and output, as a person at a terminal does; wait returns
// its exit code and standard error once it has ended.
func playInPTY(t *testing.T, args ...string) (ptmx *os.File, screen *ptyScreen, wait func() (int, string)) {
	t.Helper()
	ptmx, tty := clitest.PTY(t)
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
		t.Fatal(err)
	}
	screen = &ptyScreen{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			screen.mu.Lock()
			screen.out.Write(buf[:n])
			screen.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	vars := map[string]string{"USER": "tester", "TERM": "xterm-256color"}
	var (
		code   int
		errOut bytes.Buffer
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		code = tab.Main(t.Context(), args, func(k string) string { return vars[k] }, tty, tty, &errOut)
	}()
	t.Cleanup(func() { <-done }) // the test's context ends the command
	return ptmx, screen, func() (int, string) {
		<-done
		return code, errOut.String()
	}
}

// waitPTY waits until the screen has shown want after offset from and
// returns the offset after it.
func waitPTY(t *testing.T, s *ptyScreen, from int, want string) int {
	t.Helper()
	deadline := testenv.Deadline(t)
	for {
		text, end := s.since(from)
		if strings.Contains(text, want) {
			return end
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q; it showed:\n%s", want, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The first key typed at the offer of an unfinished game counts: a game
// left with q y is offered on the next run, and one key resumes it. Both
// runs go through the command as a person starts it, with a
// pseudo-terminal for standard input and output (the terminal's input
// flushed before the screen starts, raw mode, Bubble Tea's reader).
func TestFirstKeyAtTheResumeOffer(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	key := func(ptmx *os.File, k string) {
		t.Helper()
		if _, err := ptmx.WriteString(k); err != nil {
			t.Fatal(err)
		}
	}
	ended := func(wait func() (int, string)) {
		t.Helper()
		if code, errOut := wait(); code != 0 {
			t.Fatalf("play: exit %d, stderr %q", code, errOut)
		}
	}
	ptmx, screen, wait := playInPTY(t, "play", "--data-dir", dir, "--game", "quoridor", "--vs", "bot:easy")
	at := waitPTY(t, screen, 0, "Your move (")
	key(ptmx, "q")
	waitPTY(t, screen, at, "y quits")
	key(ptmx, "y")
	ended(wait)

	for _, k := range []string{"\r", "r"} {
		ptmx, screen, wait = playInPTY(t, "play", "--data-dir", dir)
		at = waitPTY(t, screen, 0, "enter: resume it")
		key(ptmx, k)
		at = waitPTY(t, screen, at, "Your move (")
		key(ptmx, "q")
		waitPTY(t, screen, at, "y quits")
		key(ptmx, "y")
		ended(wait)
	}
}
