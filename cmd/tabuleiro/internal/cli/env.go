// Package cli is what every subcommand of tabuleiro shares: the player's
// language and standard streams (Env), the exit status a command asks for
// (ExitError), and Run, which builds the root command from the
// subcommands it is given and executes one command line.
package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// Env is what every subcommand writes to and reads from.
type Env struct {
	Getenv         func(string) string // the only reader of the environment
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	P              *text.Printer // the player's language
	// Self is how the player runs this program ("tabuleiro", or "go run
	// ./cmd/tabuleiro"): the messages' hints name commands so.
	Self string
}

// T is the message key in the player's language, its hints naming this
// program as Self.
func (e *Env) T(key string, kv ...any) string { return Hints(text.T(e.P, key, kv...), e.Self) }

// hint finds a command in a message: "tabuleiro play", "tabuleiro history".
// hint is a command a message names: "tabuleiro play", not the end of a
// path ("./cmd/tabuleiro play", a command already named as self).
var hint = regexp.MustCompile(`(^|[^/\w])tabuleiro (play|serve|watch|history|stats|replay|migrate|rules|bots|load|config|login|help)\b`)

// Hints makes the commands that message names ("tabuleiro play …") name
// this program as self ("go run ./cmd/tabuleiro play …"); "" or
// "tabuleiro" leaves them.
func Hints(message, self string) string {
	if self == "" || self == "tabuleiro" {
		return message
	}
	return hint.ReplaceAllString(message, "${1}"+self+" ${2}")
}

// SelfCommand is how the user started this program: "go run
// ./cmd/tabuleiro" when it runs from go run's build cache (a new user has
// no tabuleiro binary on the PATH), "tabuleiro" otherwise.
func SelfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "tabuleiro"
	}
	return selfCommand(exe)
}

func selfCommand(exe string) string {
	if filepath.Base(exe) == "tabuleiro" && strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/tabuleiro"
	}
	return "tabuleiro"
}

// Errorf is fmt.Errorf of the message key in the player's language, its
// error parameter (if any) wrapped.
func (e *Env) Errorf(key string, kv ...any) error {
	var wrapped error
	for i := 1; i < len(kv); i += 2 {
		if err, ok := kv[i].(error); ok {
			wrapped = err
			kv[i] = text.Err(e.P, err)
		}
	}
	msg := e.T(key, kv...)
	if wrapped != nil {
		return &textError{msg: msg, err: wrapped}
	}
	return errors.New(msg)
}

// textError is a message in the player's language that wraps the error it
// names.
type textError struct {
	msg string
	err error
}

func (e *textError) Error() string { return e.msg }
func (e *textError) Unwrap() error { return e.err }

// ExitError carries the exit status a command wants, with its message.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// BusyDataDir words local.Start's refusal of a data directory that another
// process holds in the player's language (what happened, then what to
// do); it is nil for any other error.
func (e *Env) BusyDataDir(err error) error {
	var busy *local.BusyError
	if !errors.As(err, &busy) {
		return nil
	}
	if busy.PID > 0 {
		return e.Errorf("error.data_dir_busy_pid", "dir", busy.Dir, "pid", strconv.Itoa(busy.PID))
	}
	return e.Errorf("error.data_dir_busy", "dir", busy.Dir)
}
