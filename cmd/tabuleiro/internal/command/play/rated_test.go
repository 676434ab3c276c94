package play

import (
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// `play --queue --rated` as a fresh guest: the lobby refuses it under the
// fair-play rule for rated play, and the terminal says why in the
// player's language (how many casual games, how long until a day). --rated
// without --queue is a usage error.
func TestRatedQueueRefusedToANewGuest(t *testing.T) {
	t.Parallel()
	c, me, ctx := clitest.StartLocal(t)
	for lang, want := range map[string]string{
		"pt-BR": "Um convidado joga partidas valendo rating depois de 3 partidas casuais ou de um dia: você terminou 0, e elas se abrem em 24 h.",
		"es":    "Un invitado juega partidas puntuadas tras 3 partidas casuales o un día: has terminado 0, y las puntuadas se abren en 24 h.",
		"en":    "A guest plays rated games after 3 casual games or one day: you have finished 0, and rated play opens in 24 h.",
	} {
		p := text.Catalog.Printer(lang)
		tb := &tables{p: p, c: c, me: me, opp: opponent{queue: true, rated: true}, game: gamev1.Game_GAME_QUORIDOR, variant: "standard"}
		_, _, err := tb.matchFor(ctx, 0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want it to say %q", lang, err, want)
		}
	}
	vars := clitest.LocalVars(t)
	vars["LANG"] = "pt_BR.UTF-8"
	code, _, errOut := tab.Run(t, vars, "play", "--rated")
	if code != 2 || !strings.Contains(errOut, "--rated vai com --queue") {
		t.Errorf("--rated without --queue: exit %d, %q", code, errOut)
	}
}
