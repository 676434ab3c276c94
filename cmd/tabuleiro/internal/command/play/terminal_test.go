package play

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
)

// Interactive play refuses a standard output (or input) that is not a
// terminal, such as `play | tee log`, before starting anything, and
// points to --auto.
func TestPlayNeedsATerminal(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	dir := t.TempDir()
	vars := map[string]string{"TABULEIRO_DATA_DIR": filepath.Join(dir, "data"), "USER": "tester"}
	var errOut bytes.Buffer
	code := tab.Main(t.Context(), []string{"play"}, func(k string) string { return vars[k] }, strings.NewReader(""), w, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "not a terminal") || !strings.Contains(errOut.String(), "--auto") {
		t.Errorf("play into a pipe: exit %d, stderr %q; want exit 2 naming the terminal and --auto", code, errOut.String())
	}
	if _, err := os.Stat(vars["TABULEIRO_DATA_DIR"]); !os.IsNotExist(err) {
		t.Errorf("play into a pipe started the local server (data dir: %v)", err)
	}
}

// `play --auto` without --data-dir plays in a temporary data directory:
// the player's own (here TABULEIRO_DATA_DIR) is never created, so its
// history and stats are left alone.
func TestPlayAutoLeavesTheRecordAlone(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TABULEIRO_DATA_DIR": filepath.Join(t.TempDir(), "data"), "USER": "tester"}
	code, out, errOut := tab.Run(t, vars, "play", "--auto", "--game", "corners")
	if code != 0 || !strings.Contains(out, "Corners Classic 3×3: vs Bot (easy) (you moved ") {
		t.Fatalf("play --auto: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(vars["TABULEIRO_DATA_DIR"]); !os.IsNotExist(err) {
		t.Errorf("play --auto wrote to the player's data directory (%v)", err)
	}
}

// Small messages of the command: an unknown game names the games; stats
// with no games prints no line of padding.
func TestMessages(t *testing.T) {
	t.Parallel()
	code, _, errOut := tab.Run(t, clitest.LocalVars(t), "play", "--game", "chess")
	if want := "tabuleiro: unknown game chess (want quoridor, corners or banqi)\n"; code != 2 || errOut != want {
		t.Errorf("play --game chess: exit %d, stderr %q; want 2, %q", code, errOut, want)
	}
	// A name the server refuses is explained to the player: what a name
	// may hold, with an example; not the API's field and byte offsets.
	code, _, errOut = tab.Run(t, clitest.LocalVars(t), "play", "--auto", "--game", "corners", "--name", "Ana!")
	if code != 2 || !strings.Contains(errOut, `for example --name "Ana Lima"`) || !strings.Contains(errOut, "2 to 24") ||
		strings.Contains(errOut, "display_name") || strings.Contains(errOut, "byte") {
		t.Errorf("play --name Ana!: exit %d, stderr %q; want 2 and a player's sentence with an example", code, errOut)
	}
	// Bytes that are not UTF-8 get the same sentence (gRPC would not send them).
	code, _, errOut = tab.Run(t, clitest.LocalVars(t), "play", "--auto", "--game", "corners", "--name", "\xff\xfe")
	if code != 2 || !strings.Contains(errOut, `for example --name "Ana Lima"`) || strings.Contains(errOut, "marshal") {
		t.Errorf("play --name of invalid UTF-8: exit %d, stderr %q; want 2 and a player's sentence", code, errOut)
	}
	code, out, errOut := tab.Run(t, clitest.LocalVars(t), "stats")
	if code != 0 || !strings.Contains(out, "(no rated games yet)") {
		t.Fatalf("stats: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for i, l := range strings.Split(out, "\n") {
		if l != "" && strings.TrimSpace(l) == "" || l != strings.TrimRight(l, " ") {
			t.Errorf("stats line %d is padded: %q\n%s", i+1, l, out)
		}
	}
}
