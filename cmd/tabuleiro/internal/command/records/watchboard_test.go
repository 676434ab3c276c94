package records

import (
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// watch draws each board as the game screen of play does (package tui),
// not the engine's plain board.
func TestWatchDrawsThePlayBoard(t *testing.T) {
	t.Parallel()
	c, me, ctx := clitest.StartLocal(t)
	resp, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut clitest.SyncBuffer
	done := make(chan int)
	vars := clitest.LocalVars(t)
	go func() {
		done <- tab.Main(t.Context(), []string{"watch", "--server", c.Target(), resp.GetMatchId()},
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "watching") {
		select {
		case <-deadline:
			t.Fatalf("watch printed no snapshot: %q %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	if _, err := autoplay.Seat(t.Context(), c, me, resp.GetMatchId(), firstPlies{autoplay.Random(3), 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Match.Resign(me.Context(t.Context()), &matchv1.ResignRequest{MatchId: resp.GetMatchId()}); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("watch: exit %d, stderr %s", code, errOut.String())
	}
	m, err := c.Match.GetMatch(me.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: resp.GetMatchId()})
	if err != nil {
		t.Fatal(err)
	}
	final := m.GetMatch()
	want := tui.Board(nil, &matchv1.Match{View: final.GetView(), Seats: final.GetSeats(), Plies: final.GetPlies()})
	if !strings.Contains(out.String(), want) {
		t.Errorf("watch's last board is not the game screen's:\n%s\nwant the board\n%s", out.String(), want)
	}
}
