package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// serve prints a banner naming the stores and what persists, serves until
// interrupted, and then exits 0. It logs no line per call unless asked to
// (--access-log, or TABULEIRO_ACCESS_LOG=1).
func TestServeBanner(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		args      []string
		env       string
		accessLog bool
	}{
		{"quiet by default", nil, "", false},
		{"--access-log", []string{"--access-log"}, "", true},
		{"TABULEIRO_ACCESS_LOG=1", nil, "1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut := serveOneCall(t, tc.args, tc.env)
			for _, want := range []string{"lobby, match and bot serving on 127.0.0.1:", "embedded Redis", "games in progress persist", "PostgreSQL at", "web:        ", "http://localhost:", "logs:       "} {
				if !strings.Contains(out, want) {
					t.Errorf("banner lacks %q:\n%s", want, out)
				}
			}
			if got := strings.Contains(errOut, `"msg":"rpc finished"`); got != tc.accessLog {
				t.Errorf("a line per call on stderr: %v, want %v; stderr:\n%s", got, tc.accessLog, errOut)
			}
		})
	}
}

// serveOneCall runs serve (with extra args and TABULEIRO_ACCESS_LOG=env),
// signs a guest in through it, interrupts it, and returns what it wrote.
func serveOneCall(t *testing.T, extra []string, accessEnv string) (stdout, stderr string) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut clitest.SyncBuffer
	vars := clitest.LocalVars(t)
	vars["TABULEIRO_ACCESS_LOG"] = accessEnv
	done := make(chan int)
	go func() {
		done <- tab.Main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--database-url", testenv.PostgresDSN(t)}, extra...),
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "logs:") {
		select {
		case <-deadline:
			t.Fatalf("no banner; stdout %q stderr %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	_, rest, _ := strings.Cut(out.String(), "serving on ")
	addr, _, _ := strings.Cut(rest, "\n")
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SignIn(t.Context(), "Ana"); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d after the interrupt; stderr %s", code, errOut.String())
	}
	return out.String(), errOut.String()
}
