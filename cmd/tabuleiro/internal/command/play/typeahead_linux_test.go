package play

import (
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tabuleiro.dev/pkg/platform/testenv"
)

// openPTY returns a pseudo-terminal's controller and its terminal side.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = ptmx.Close() })
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tty.Close() })
	return ptmx, tty
}

// Keys typed at the terminal before the game screen starts (arrows and
// letters while the server starts) are dropped instead of being read as
// the first cursor moves once the board is shown.
func TestTypeaheadDropped(t *testing.T) {
	t.Parallel()
	ptmx, tty := openPTY(t)
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
