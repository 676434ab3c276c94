package clitest

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

// PTY opens a pseudo-terminal: the controlling side a person types into
// and reads (ptmx), and the terminal a command is given (tty). Both close
// when the test ends.
func PTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = ptmx.Close(); _ = tty.Close() })
	return ptmx, tty
}
