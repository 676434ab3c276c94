package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/platform/testenv"
)

func runWithEnv(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMigrateAppliesOnce(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TABULEIRO_DATABASE_URL": testenv.PostgresDSN(t)}
	code, out, errOut := runWithEnv(t, vars, "migrate")
	if code != 0 || out == "applied 0 migrations\n" {
		t.Fatalf("first migrate: exit %d, stdout %q, stderr %q; want exit 0 and some migrations applied", code, out, errOut)
	}
	code, out, errOut = runWithEnv(t, vars, "migrate")
	if code != 0 || out != "applied 0 migrations\n" {
		t.Fatalf("second migrate: exit %d, stdout %q, stderr %q; want nothing applied", code, out, errOut)
	}
}

func TestMigrateNeedsURL(t *testing.T) {
	t.Parallel()
	code, _, errOut := runWithEnv(t, nil, "migrate")
	if code != 2 || !strings.Contains(errOut, "TABULEIRO_DATABASE_URL") {
		t.Fatalf("exit %d, stderr %q; want 2 naming TABULEIRO_DATABASE_URL", code, errOut)
	}
}

// A data directory whose results database was deleted (or replaced) keeps
// an identity the server no longer knows: stats then start afresh with a
// new guest instead of failing for good.
func TestStatsAfterTheResultsDatabaseIsGone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, errOut := runWithEnv(t, nil, "stats", "--data-dir", dir); code != 0 {
		t.Fatalf("first stats: exit %d, stderr %q", code, errOut)
	}
	dbs, _ := filepath.Glob(filepath.Join(dir, "results.db*"))
	if len(dbs) == 0 {
		t.Fatalf("no results.db in %s", dir)
	}
	for _, f := range dbs {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runWithEnv(t, nil, "stats", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "AGAINST BOTS") {
		t.Fatalf("stats without the results database: exit %d, stdout %q, stderr %q; want exit 0 and empty stats", code, out, errOut)
	}
}
