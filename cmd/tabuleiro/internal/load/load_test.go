package load

import (
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
)

// Two players against the one-process mode play three games in a row: a
// player whose game just ended queues again at once, with no error of any
// kind (the lobby used to refuse the second game with FailedPrecondition
// for a minute, and the tool only counted it).
func TestPlayersQueueAgainAfterAGame(t *testing.T) {
	srv := clitest.Serve(t, local.Options{})
	rep, err := Run(t.Context(), Config{
		Lobby: []string{srv.Addr()}, Players: 2, MaxGames: 3, Wander: 2,
		Duration: 10 * time.Minute, Drain: time.Minute, Seed: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.GamesFinished < 3 {
		t.Errorf("%d games finished, want 3 in a row", rep.GamesFinished)
	}
	if bad := rep.Unexpected(nil); len(bad) > 0 {
		t.Errorf("unexpected errors: %v", bad)
	}
}
