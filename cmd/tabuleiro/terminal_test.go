package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	code := run(t.Context(), []string{"play"}, func(k string) string { return vars[k] }, strings.NewReader(""), w, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "not a terminal") || !strings.Contains(errOut.String(), "--auto") {
		t.Errorf("play into a pipe: exit %d, stderr %q; want exit 2 naming the terminal and --auto", code, errOut.String())
	}
	if _, err := os.Stat(vars["TABULEIRO_DATA_DIR"]); !os.IsNotExist(err) {
		t.Errorf("play into a pipe started the local server (data dir: %v)", err)
	}
}
