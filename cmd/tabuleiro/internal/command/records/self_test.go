package records

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
)

// Run through `go run` (as README's first command does), the commands'
// hints name the command the way it was run, not a tabuleiro binary the
// player does not have: history with no games, and the hint that the
// games of a server are kept there.
func TestHintsNameTheCommandAsRun(t *testing.T) {
	t.Parallel()
	const self = "go run ./cmd/tabuleiro"
	vars := clitest.LocalVars(t)
	var out, errOut bytes.Buffer
	code := cli.RunAs(t.Context(), self, []string{"history"}, func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut, tab...)
	if code != 0 {
		t.Fatalf("history: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if want := "no finished games yet: " + self + " play"; !strings.Contains(out.String(), want) {
		t.Errorf("history with no games: %q, want %q", out.String(), want)
	}
	if want := self + " history --server HOST:PORT"; !strings.Contains(errOut.String(), want) {
		t.Errorf("history's hint: %q, want %q", errOut.String(), want)
	}
	if regexp.MustCompile(`(^|[^/])tabuleiro (play|history)`).MatchString(out.String() + errOut.String()) {
		t.Errorf("a hint names a tabuleiro binary:\n%s%s", out.String(), errOut.String())
	}
}
