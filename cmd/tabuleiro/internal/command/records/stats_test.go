package records

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// A data directory whose results database was deleted (or replaced) keeps
// an identity the server no longer knows: stats then start afresh with a
// new guest instead of failing for good.
func TestStatsAfterTheResultsDatabaseIsGone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, errOut := tab.Run(t, nil, "stats", "--data-dir", dir); code != 0 {
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
	code, out, errOut := tab.Run(t, nil, "stats", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "AGAINST BOTS") {
		t.Fatalf("stats without the results database: exit %d, stdout %q, stderr %q; want exit 0 and empty stats", code, out, errOut)
	}
}

// stats lists every bot level of every game, as the web's statistics do,
// with zeros for the levels not played yet.
func TestStatsListsEveryLevel(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.Run(t, clitest.LocalVars(t), "stats")
	if code != 0 {
		t.Fatalf("stats: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, g := range gameword.Names() {
		for _, l := range []gamev1.BotLevel{gamev1.BotLevel_BOT_LEVEL_EASY, gamev1.BotLevel_BOT_LEVEL_MEDIUM, gamev1.BotLevel_BOT_LEVEL_HARD, gamev1.BotLevel_BOT_LEVEL_EXPERT} {
			row := regexp.MustCompile(`(?m)^` + g + `\s+` + regexp.QuoteMeta(text.Level(nil, l)) + `\s+0\s+0\s+0$`)
			if !row.MatchString(out) {
				t.Errorf("stats has no row for %s %s:\n%s", g, text.Level(nil, l), out)
			}
		}
	}
}
