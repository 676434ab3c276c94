package load

import (
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
)

// tab is tabuleiro's command line with load.
var tab = clitest.Commands{New}

// load's help, for operators, is in their language, as the players'
// commands' is.
func TestLoadHelpTranslated(t *testing.T) {
	t.Parallel()
	tab.HelpTranslated(t)
}

// The report of a run is in the player's language: its labels come from
// the catalog, not in English.
func TestLoadReportInThePlayersLanguage(t *testing.T) {
	t.Parallel()
	srv := clitest.Serve(t, local.Options{})
	english := []string{"players", "elapsed", "games started", "finished", "peak concurrent", "plies", "round trip",
		"matchmaking", "rejoins", "errors", "max", "CPU per ply", "load generator", "no server process"}
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"pt-BR", []string{"jogadores 2, duração ", "partidas iniciadas ", ", terminadas ", "lances/s", "ida e volta de um lance p50 ",
			"espera por adversário p50 ", "reconexões 0", "erros nenhum", "CPU por lance do gerador de carga: "}},
		{"es", []string{"jugadores 2, duración ", "partidas iniciadas ", "jugadas/s", "ida y vuelta de una jugada p50 ",
			"espera de emparejamiento p50 ", "reconexiones 0", "errores ninguno", "CPU por jugada del generador de carga: "}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			code, out, errOut := tab.Run(t, map[string]string{"TABULEIRO_LANG": tc.lang, "TABULEIRO_DATA_DIR": t.TempDir()},
				"load", "--server", srv.Addr(), "--players", "2", "--max-games", "1", "--wander", "2", "--duration", "1m")
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
			for _, en := range english {
				if strings.Contains(out, en) {
					t.Errorf("report says %q in English:\n%s", en, out)
				}
			}
		})
	}
}
