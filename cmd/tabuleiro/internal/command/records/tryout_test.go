package records

import (
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/boardtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// watch on a finished game says its outcome once: the outcome line, not
// the engine's result line under the board too.
func TestWatchFinishedGameSaysOutcomeOnce(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	if code, out, errOut := tab.Run(t, vars, "play", "--auto", "--game", "corners", "--data-dir", vars["TABULEIRO_DATA_DIR"]); code != 0 {
		t.Fatalf("play --auto: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var id string
	deadline := testenv.Deadline(t)
	for id == "" {
		code, out, errOut := tab.Run(t, vars, "history")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code == 0 && len(lines) == 2 && strings.HasPrefix(lines[0], "ENDED") {
			f := strings.Fields(lines[1])
			id = f[len(f)-1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
	code, out, errOut := tab.Run(t, vars, "watch", id)
	if code != 0 || strings.Count(out, "outcome: ") != 1 || resultLineIn(out) {
		t.Fatalf("watch %s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant the outcome once", id, code, out, errOut)
	}
}

// resultLineIn says whether out has an engine's result line.
func resultLineIn(out string) bool {
	for l := range strings.Lines(out) {
		if !strings.HasPrefix(l, "outcome: ") && boardtext.IsResult(l) {
			return true
		}
	}
	return false
}

// watch without a match id says what it expects, as a usage error.
func TestWatchWithoutID(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.Run(t, clitest.LocalVars(t), "watch")
	if code != 2 || out != "" || !strings.Contains(errOut, "usage: tabuleiro watch MATCH") {
		t.Fatalf("watch: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 2 and a usage line", code, out, errOut)
	}
}

// history --server with no games says there are none on that server for
// this identity, not how to play on this computer.
func TestHistoryServerEmpty(t *testing.T) {
	t.Parallel()
	c, _, _ := clitest.StartLocal(t)
	code, out, errOut := tab.Run(t, clitest.LocalVars(t), "history", "--server", c.Target())
	if code != 0 || !strings.Contains(out, "no finished games on "+c.Target()+" for tester") {
		t.Fatalf("history --server: exit %d\nstdout:\n%s\nstderr:\n%s\nwant no finished games on that server for tester", code, out, errOut)
	}
}
