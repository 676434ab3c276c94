// Command tabuleiro plays Tabuleiro's games in a terminal, checks game
// records against the rules, and runs every service in one process.
//
// Usage: tabuleiro <command> [flags]; `tabuleiro help` lists the commands.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exitError carries the exit status a command wants, with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// run executes one command line and returns the process exit status: 0 on
// success, 1 when the command failed (an illegal ply, a failed game), 2 on
// a usage error.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	p := text.Catalog.Printer(chooseLang(args, getenv))
	root := newRootCommand(p, getenv, stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "tabuleiro:", text.Err(p, err))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 2
}

// env is what every subcommand writes to and reads from.
type env struct {
	getenv         func(string) string // the only reader of the environment
	stdin          io.Reader
	stdout, stderr io.Writer
	p              *text.Printer // the player's language
}

// t is the message key in the player's language.
func (e *env) t(key string, kv ...any) string { return text.T(e.p, key, kv...) }

// errorf is fmt.Errorf of the message key in the player's language, its
// error parameter (if any) wrapped.
func (e *env) errorf(key string, kv ...any) error {
	var wrapped error
	for i := 1; i < len(kv); i += 2 {
		if err, ok := kv[i].(error); ok {
			wrapped = err
			kv[i] = text.Err(e.p, err)
		}
	}
	msg := e.t(key, kv...)
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

// chooseLang finds the player's language before the command line is
// parsed (the commands' help is in it): --lang, $TABULEIRO_LANG, the
// setting `tabuleiro config lang` kept in the data directory (--data-dir,
// $TABULEIRO_DATA_DIR or the default), the POSIX locale, English.
func chooseLang(args []string, getenv func(string) string) string {
	flag := func(name string) string {
		for i, a := range args {
			if a == "--" {
				break
			}
			if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
				return v
			}
			if a == "--"+name && i+1 < len(args) {
				return args[i+1]
			}
		}
		return ""
	}
	dir := cmp.Or(flag("data-dir"), getenv("TABULEIRO_DATA_DIR"))
	if dir == "" {
		dir, _ = local.DataDir(getenv)
	}
	return text.Choose(flag("lang"), getenv, text.Saved(dir))
}

func newRootCommand(p *text.Printer, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, p: text.Or(p)}
	root := &cobra.Command{
		Use:           "tabuleiro",
		Short:         e.t("cmd.root.short"),
		Long:          e.t("cmd.root.long"),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("lang", "", e.t("flag.lang"))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newPlayCommand(e), newServeCommand(e), newWatchCommand(e), newHistoryCommand(e), newStatsCommand(e),
		newReplayCommand(e), newMigrateCommand(e), newRulesCommand(e), newBotsCommand(e), newEmbeddedRedisCommand(e), newLoadCommand(e),
		newConfigCommand(e))
	localizeHelp(e, root)
	return root
}
