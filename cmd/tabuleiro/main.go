// Command tabuleiro plays Tabuleiro's games in a terminal, checks game
// records against the rules, and runs every service in one process.
//
// Usage: tabuleiro <command> [flags]; `tabuleiro help` lists the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
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
	root := newRootCommand(getenv, stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "tabuleiro:", tui.ErrText(err))
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
}

func newRootCommand(getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "tabuleiro",
		Short:         "Play Quoridor, Corners and Banqi; check records against the rules",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newPlayCommand(e), newServeCommand(e), newWatchCommand(e), newHistoryCommand(e), newStatsCommand(e),
		newReplayCommand(e), newMigrateCommand(e), newRulesCommand(e), newBotsCommand(e), newEmbeddedRedisCommand(e), newLoadCommand(e))
	return root
}
