package review

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
)

// A record file is reviewed on the one-process server's bot service: a
// progress bar on standard error, then a line a ply, black's sideways ply
// 6 a blunder with the expert's better step, and each seat's summary.
func TestReviewRecordFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "game.txt")
	if err := os.WriteFile(file, []byte("# game: quoridor\ne2 d9 e3 e9 e4 d9 e5 e9 e6 d9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := clitest.LocalVars(t)
	vars["TABULEIRO_LANG"] = "en"
	code, stdout, stderr := clitest.Commands{New}.Run(t, vars, "review", file)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "reviewing [") || !strings.Contains(stderr, "10/10") {
		t.Errorf("no progress bar on standard error:\n%s", stderr)
	}
	// Ply 6's line (a marked ply's better line may go on under it, at 80 columns).
	ply6 := regexp.MustCompile(`(?m)^  6\. .*$`).FindString(stdout)
	if !strings.Contains(ply6, "d9??") || !strings.Contains(ply6, "blunder") || !strings.Contains(ply6, "better e8") {
		t.Errorf("ply 6 not a blunder with the better e8:\n%s", stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("a line of %d columns (the output is no terminal: 80): %q", n, l)
		}
	}
	if !strings.Contains(stdout, "accuracy") || !strings.Contains(stdout, "critical moment: ply 6") {
		t.Errorf("no summary or critical moment:\n%s", stdout)
	}
}
