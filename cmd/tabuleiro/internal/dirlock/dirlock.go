// Package dirlock keeps a directory to one process at a time: the data
// directory of a tabuleiro command, and the embedded Redis's log in it.
package dirlock

import "strconv"

// BusyError is Lock's answer when another process holds the directory.
type BusyError struct {
	Dir string
	PID int // the holder's process id, 0 when unknown
}

func (e *BusyError) Error() string {
	if e.PID > 0 {
		return e.Dir + " is in use by process " + strconv.Itoa(e.PID)
	}
	return e.Dir + " is in use by another process"
}
