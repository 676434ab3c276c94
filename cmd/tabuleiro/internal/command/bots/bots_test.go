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

// A match's and a ladder's tables are in the player's language: their
// headers and labels come from the catalog, not in English.
func TestBotsTablesInThePlayersLanguage(t *testing.T) {
	t.Parallel()
	tiny := []string{"--game", "corners", "--variant", "classic-3x3", "--games", "2", "--budget", "10", "--opening", "2"}
	english := []string{"wins", "draws", "losses", "score", "endings", "think", "plies", "mean", "games", "budget",
		"ladder", "level", "matches", "ratings", "scale"}
	for _, tc := range []struct {
		lang     string
		args     []string
		want     []string
		progress string
	}{
		{"pt-BR", []string{"bots", "--a", "easy", "--b", "medium"}, []string{"vitórias", "empates", "derrotas", "aproveitamento",
			"2 partidas", "desfechos: ", "Elo A-B: ", "reflexão", "lances", "média"}, "partida 2/2: easy "},
		{"es", []string{"bots", "--a", "easy", "--b", "medium"}, []string{"victorias", "empates", "derrotas", "puntuación",
			"2 partidas", "finales: ", "reflexión", "jugadas", "media"}, "partida 2/2: easy "},
		{"pt-BR", []string{"bots", "ladder", "--levels", "easy,medium"}, []string{"todos contra todos: easy, medium, 2 partidas por par",
			"easy = 0", "nível", "partidas", "aproveitamento", "confrontos (A vitórias-empates-derrotas B):"}, "easy x medium: "},
		{"es", []string{"bots", "ladder", "--levels", "easy,medium"}, []string{"todos contra todos: easy, medium, 2 partidas por pareja",
			"easy = 0", "nivel", "puntuación", "enfrentamientos"}, "easy contra medium: "},
	} {
		t.Run(tc.lang+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := tab.Run(t, map[string]string{"TABULEIRO_LANG": tc.lang, "TABULEIRO_DATA_DIR": t.TempDir()},
				append(tc.args, tiny...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			// The progress lines, one a game or a match, too.
			if !strings.Contains(errOut, tc.progress) || strings.Contains(errOut, "score") || strings.Contains(errOut, " vs ") {
				t.Errorf("progress lines %q, want %q, in %s", errOut, tc.progress, tc.lang)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, en := range english {
				if strings.Contains(out, en) {
					t.Errorf("output says %q in English:\n%s", en, out)
				}
			}
		})
	}
}
