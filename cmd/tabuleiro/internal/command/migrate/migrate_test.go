package migrate

import (
	"strings"
	"testing"

	"tabuleiro.dev/pkg/platform/testenv"
)

func TestMigrateAppliesOnce(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TABULEIRO_DATABASE_URL": testenv.PostgresDSN(t)}
	code, out, errOut := tab.Run(t, vars, "migrate")
	if code != 0 || out == "applied 0 migrations\n" {
		t.Fatalf("first migrate: exit %d, stdout %q, stderr %q; want exit 0 and some migrations applied", code, out, errOut)
	}
	code, out, errOut = tab.Run(t, vars, "migrate")
	if code != 0 || out != "applied 0 migrations\n" {
		t.Fatalf("second migrate: exit %d, stdout %q, stderr %q; want nothing applied", code, out, errOut)
	}
}

func TestMigrateNeedsURL(t *testing.T) {
	t.Parallel()
	code, _, errOut := tab.Run(t, nil, "migrate")
	if code != 2 || !strings.Contains(errOut, "TABULEIRO_DATABASE_URL") {
		t.Fatalf("exit %d, stderr %q; want 2 naming TABULEIRO_DATABASE_URL", code, errOut)
	}
}

// migrate's help is in the player's language, as the other commands' is.
func TestMigrateHelpTranslated(t *testing.T) {
	t.Parallel()
	tab.HelpTranslated(t)
}
