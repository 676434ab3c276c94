package play

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// Keys typed at the terminal before the game screen starts (arrows and
// letters while the server starts) are dropped instead of being read as
// the first cursor moves once the board is shown.
func TestTypeaheadDropped(t *testing.T) {
	t.Parallel()
	ptmx, tty := clitest.PTY(t)
	if _, err := ptmx.WriteString("hjkl\x1b[A\x1b[D\n"); err != nil {
		t.Fatal(err)
	}
	// The line discipline takes the bytes asynchronously: wait until the
	// terminal side holds them.
	deadline := testenv.Deadline(t)
	for {
		n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the typed keys never reached the terminal")
		}
		time.Sleep(time.Millisecond)
	}
	dropTypeahead(tty)
	if n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ); err != nil || n != 0 {
		t.Errorf("%d bytes still waiting to be read (%v), want the typeahead dropped", n, err)
	}
}
