package records

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
