package play

import (
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The second player at this keyboard is named after the first, "tester
// 2", as the web names its partner, not "Player 2": history shows it.
func TestSecondPlayerNamedAfterTheFirst(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	code, out, errOut := tab.Run(t, vars, "play", "--auto", "--game", "corners", "--vs", "local", "--data-dir", vars["TABULEIRO_DATA_DIR"])
	if code != 0 {
		t.Fatalf("play --auto --vs local: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	deadline := testenv.Deadline(t)
	for {
		code, out, errOut = tab.Run(t, vars, "history")
		if code == 0 && strings.Count(out, "\n") == 2 { // the header and the game
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
	if !strings.Contains(out, "tester 2") || strings.Contains(out, "Player 2") {
		t.Errorf("history of a game at one keyboard: want the opponent \"tester 2\":\n%s", out)
	}
}
