package records

import (
	"io"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// watch follows a match as a spectator from its start to its end,
// printing each ply with the board and the outcome.
func TestWatch(t *testing.T) {
	t.Parallel()
	c, me, ctx := clitest.StartLocal(t)
	resp, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_BANQI, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	addr := c.Target()
	var out, errOut clitest.SyncBuffer
	done := make(chan int)
	vars := clitest.LocalVars(t)
	go func() {
		done <- tab.Main(t.Context(), []string{"watch", "--server", addr, resp.GetMatchId()},
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "watching") { // the snapshot: then play
		select {
		case <-deadline:
			t.Fatalf("watch printed no snapshot: %q %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	// A whole game (the opponent is the easy bot); under -short, eight
	// plies of it and a resignation.
	var choose autoplay.Chooser = autoplay.Random(5)
	if testing.Short() {
		choose = firstPlies{choose, 8}
	}
	res, err := autoplay.Seat(t.Context(), c, me, resp.GetMatchId(), choose)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() { // no Banqi game ends in eight plies
		if _, err := c.Match.Resign(me.Context(t.Context()), &matchv1.ResignRequest{MatchId: resp.GetMatchId()}); err != nil {
			t.Fatal(err)
		}
	}
	if code := <-done; code != 0 {
		t.Fatalf("watch: exit %d, stderr %s", code, errOut.String())
	}
	if testing.Short() {
		m, err := c.Match.GetMatch(me.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: resp.GetMatchId()})
		if err != nil {
			t.Fatal(err)
		}
		res.Outcome = m.GetMatch().GetOutcome()
	}
	want := "outcome: " + gameword.Outcome(nil, engine.Banqi, res.Outcome) + "\n"
	if !strings.HasSuffix(out.String(), want) || !strings.Contains(out.String(), "\nply 1: ") {
		t.Errorf("watch printed:\n%s\nwant every ply and, last, %q", out.String(), want)
	}
}

// firstPlies plays as its chooser does for its first n plies of the game,
// then ends (autoplay.ErrRecordEnded).
type firstPlies struct {
	autoplay.Chooser
	n int32
}

func (f firstPlies) Choose(view *gamev1.GameView, legal []*matchv1.LegalPly) (string, error) {
	if view.GetPlyCount() >= f.n {
		return "", autoplay.ErrRecordEnded
	}
	return f.Chooser.Choose(view, legal)
}

// watch stops, with no error, on a line "q".
func TestWatchStopsOnQ(t *testing.T) {
	t.Parallel()
	c, me, ctx := clitest.StartLocal(t)
	resp, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut clitest.SyncBuffer
	in, keys := io.Pipe()
	done := make(chan int)
	vars := clitest.LocalVars(t)
	go func() {
		done <- tab.Main(t.Context(), []string{"watch", "--server", c.Target(), resp.GetMatchId()},
			func(k string) string { return vars[k] }, in, &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "watching\n(to stop: q and Enter, or Ctrl-C)") {
		select {
		case <-deadline:
			t.Fatalf("watch printed no snapshot: %q %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	if _, err := io.WriteString(keys, "q\n"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 || !strings.HasSuffix(out.String(), "stopped watching "+resp.GetMatchId()+"\n") || errOut.String() != "" {
		t.Fatalf("watch after q: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}
