package bots

import (
	"strings"
	"testing"
)

// TestBotsLadder runs a tiny round robin of Corners levels (including the
// frozen expert-1) and checks the table, and that bad levels exit 2.
func TestBotsLadder(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "bots", "ladder", "--game", "corners", "--variant", "classic-3x3",
		"--levels", "easy,medium,expert-1", "--games", "2", "--budget", "10", "--opening", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"ladder: easy, medium, expert-1", "easy = 0", "expert-1", "medium", "matches"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(errOut, " vs "); n != 3 {
		t.Errorf("progress names %d matches, want 3:\n%s", n, errOut)
	}
	code, _, errOut = tab.RunIn(t, "", "bots", "ladder", "--levels", "easy,grandmaster")
	if code != 2 || !strings.Contains(errOut, "grandmaster") {
		t.Errorf("unknown level: exit %d, stderr %q; want 2 naming it", code, errOut)
	}
}

// bots' help, its ladder's and their flags', is in the player's language.
func TestBotsHelpTranslated(t *testing.T) {
	t.Parallel()
	tab.HelpTranslated(t)
}
