// Package dirlock keeps a directory to one process at a time: the data
// directory of a tabuleiro command, and the embedded Redis's log in it.
package dirlock

// BusyError is Lock's answer when another process holds the directory.
type BusyError struct {
	Dir    string
	Holder string // "process 1234", or "another process"
}

func (e *BusyError) Error() string { return e.Dir + " is in use by " + e.Holder }
