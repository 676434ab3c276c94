package bots

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// commands are the subcommands these tests run.
func commands() []cli.Command { return []cli.Command{New} }

// run is tabuleiro's main with these commands.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(ctx, args, getenv, stdin, stdout, stderr, commands()...)
}

func runWithEnv(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, commands(), vars, "", args...)
}

func localVars(t *testing.T) map[string]string { return clitest.LocalVars(t) }

type syncBuffer = clitest.SyncBuffer

func startLocal(t *testing.T) (*client.Client, client.Player, context.Context) {
	t.Helper()
	return clitest.StartLocal(t)
}

func waitTurn(t *testing.T, c *client.Client, me client.Player, id string, plies int) *matchv1.Match {
	t.Helper()
	return clitest.WaitTurn(t, c, me, id, plies)
}

func somePly(t *testing.T, c *client.Client, me client.Player, m *matchv1.Match, n int) string {
	t.Helper()
	return clitest.SomePly(t, c, me, m, n)
}
func runCommand(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, os.Getenv, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}
