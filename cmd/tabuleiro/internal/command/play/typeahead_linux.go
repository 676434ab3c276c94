package play

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropTypeahead discards what was typed at the terminal f and not yet read
// (keys pressed while the server started, say): they were meant for no
// board yet, and would be read as the first cursor moves once it shows.
// Keys that come while the game screen says "Starting the game…" are the
// screen's own to drop (package tui).
func dropTypeahead(f *os.File) {
	_ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
