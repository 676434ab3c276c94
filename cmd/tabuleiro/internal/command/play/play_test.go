package play

import (
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// CI's whole-game check: `play --auto` plays a full game of each game
// against bot:easy, then two players at one keyboard, through the
// one-process mode with its embedded stores (nothing installed, as in
// README's first command); history and stats, each a later run on the
// same data directory, then list every game.
func TestPlayAutoEveryGame(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	code, out, errOut := tab.Run(t, vars, "play", "--auto", "--game", "all", "--data-dir", vars["TABULEIRO_DATA_DIR"])
	if code != 0 {
		t.Fatalf("play --auto vs bot: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, g := range []string{"Quoridor Standard: vs Bot (easy) (you moved ", "Corners Classic 3×3: vs Bot (easy) (you moved ", "Banqi Standard 8×4: vs Bot (easy) (you moved "} {
		if !strings.Contains(out, g) {
			t.Errorf("stdout lacks %q:\n%s", g, out)
		}
	}
	if strings.Contains(out, "ongoing") {
		t.Errorf("a game did not end:\n%s", out)
	}
	code, out, errOut = tab.Run(t, vars, "play", "--auto", "--game", "corners", "--vs", "local", "--data-dir", vars["TABULEIRO_DATA_DIR"])
	if code != 0 || !strings.Contains(out, "two players, one keyboard") {
		t.Fatalf("play --auto --vs local: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A finished game reaches history through the outbox, a moment later.
	deadline := testenv.Deadline(t)
	for {
		code, out, errOut = tab.Run(t, vars, "history")
		if code == 0 && strings.Count(out, "\n") == 5 { // the header and 4 games
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
	code, out, _ = tab.Run(t, vars, "stats")
	if code != 0 || !strings.Contains(out, "easy") {
		t.Errorf("stats: exit %d, no record against easy:\n%s", code, out)
	}
}
