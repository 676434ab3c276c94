// Package clitest is what the tests of tabuleiro's commands share: a
// command line run in-process, a one-process server, and waits on a match.
// Only tests import it.
package clitest

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// Commands is the command line of a root command made of these
// subcommands, as one command package's tests run it.
type Commands []cli.Command

// Main is tabuleiro's main with these commands.
func (cs Commands) Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(ctx, args, getenv, stdin, stdout, stderr, cs...)
}

// Run runs one command line with the environment vars and nothing on
// its standard input, and returns its exit status and what it wrote.
func (cs Commands) Run(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cs.run(t, func(k string) string { return vars[k] }, "", args...)
}

// RunIn runs one command line in this process's environment with the
// standard input stdin, in English and on a fresh data directory unless
// the environment names one: neither the machine's locale nor a language
// its user saved changes what the command says.
func (cs Commands) RunIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	return cs.run(t, func(k string) string {
		switch k {
		case "TABULEIRO_LANG", "LC_ALL", "LC_MESSAGES", "LANG":
			return ""
		case "TABULEIRO_DATA_DIR":
			return cmp.Or(os.Getenv(k), dir)
		}
		return os.Getenv(k)
	}, stdin, args...)
}

func (cs Commands) run(t *testing.T, getenv func(string) string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cs.Main(t.Context(), args, getenv, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// LocalVars are the variables of a command run against a one-process
// server on a fresh data directory and database schema.
func LocalVars(t *testing.T) map[string]string {
	return map[string]string{"TABULEIRO_DATA_DIR": t.TempDir(), "USER": "tester"}
}

// SyncBuffer is a bytes.Buffer safe to read while a command writes it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Serve runs a one-process server for the test, configured by o (its
// DataDir defaults to a temporary directory), until the test ends; it
// then checks the server stopped without an error.
func Serve(t *testing.T, o local.Options) *local.Server {
	t.Helper()
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	srv, err := local.Start(ctx, o)
	if err != nil {
		cancel()
		t.Fatalf("start the one-process server: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Wait(); err != nil {
			t.Errorf("the one-process server stopped with %v", err)
		}
	})
	return srv
}

// Dial connects a client to addr until the test ends.
func Dial(t *testing.T, addr string) *client.Client {
	t.Helper()
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// StartLocal runs a one-process server on PostgreSQL for the test and
// returns a client, a signed-in player and the server's context.
func StartLocal(t *testing.T) (*client.Client, client.Player, context.Context) {
	t.Helper()
	c := Dial(t, Serve(t, local.Options{DatabaseURL: testenv.PostgresDSN(t)}).Addr())
	me, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	return c, me, t.Context()
}

// WaitTurn polls the match until it is the person's turn after at least
// plies plies, or the match is over.
func WaitTurn(t *testing.T, c *client.Client, me client.Player, id string, plies int) *matchv1.Match {
	t.Helper()
	deadline := testenv.Deadline(t)
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	for {
		resp, err := c.Match.GetMatch(me.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: id})
		if err == nil {
			m := resp.GetMatch()
			if m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED || (m.GetView().GetToMove() == gamev1.Seat_SEAT_FIRST && len(m.GetPlies()) >= plies) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("still not our turn (err %v): %d plies %v, outcome %v", err, len(resp.GetMatch().GetPlies()), resp.GetMatch().GetView().GetToMove(), resp.GetMatch().GetOutcome())
		}
		<-poll.C
	}
}

// SomePly is one of the legal plies, varied with n.
func SomePly(t *testing.T, c *client.Client, me client.Player, m *matchv1.Match, n int) string {
	t.Helper()
	resp, err := c.Match.ListLegalPlies(me.Context(t.Context()), &matchv1.ListLegalPliesRequest{
		MatchId: m.GetMatchId(), ExpectedPlyNumber: m.GetView().GetPlyCount() + 1})
	if err != nil {
		t.Fatal(err)
	}
	plies := resp.GetPlies()
	if len(plies) == 0 {
		t.Fatal("no legal ply")
	}
	return plies[(n*7919)%len(plies)].GetNotation()
}
