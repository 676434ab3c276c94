package play

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// A game against a bot in the one-process mode outlives the process: play
// one ply, quit (the server stops), start again two hours later (the match
// service's clock moved on) and the game is still offered and plays on to
// its end. With the services' default windows (60 s to reconnect) the
// same game is lost by abandonment, which is what `play` used to do.
func TestResumeBotGameAfterRestart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		keep      time.Duration
		abandoned bool
	}{
		{"play's window", session.DefaultKeep, false},
		{"service defaults", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var ahead atomic.Int64
			now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
			start := func() (*client.Client, func()) {
				ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
				srv, err := local.Start(ctx, local.Options{DataDir: dir, ReconnectWindow: tt.keep, FirstPlyTimeout: tt.keep, Now: now})
				if err != nil {
					cancel()
					t.Fatal(err)
				}
				c, err := client.Dial(srv.Addr())
				if err != nil {
					t.Fatal(err)
				}
				return c, func() {
					_ = c.Close()
					cancel()
					if err := srv.Wait(); err != nil {
						t.Error(err)
					}
				}
			}

			c, stop := start()
			me, err := c.SignIn(t.Context(), "Ana")
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Lobby.PlayBot(me.Context(t.Context()), &lobbyv1.PlayBotRequest{
				Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
			if err != nil {
				t.Fatal(err)
			}
			id := resp.GetMatchId()
			st, err := c.Join(t.Context(), me, id, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: 1, Notation: "e2"}}}); err != nil {
				t.Fatal(err)
			}
			for { // until the bot has answered
				r, err := st.Recv()
				if err != nil {
					t.Fatal(err)
				}
				if r.GetEvent().GetPlyPlayed().GetPly().GetNumber() == 2 {
					break
				}
			}
			st.Close()
			stop()

			ahead.Store(int64(2 * time.Hour))
			c, stop = start()
			defer stop()
			if tt.abandoned {
				m := waitFinished(t, c, me, id)
				if got := m.GetOutcome().GetReason(); got != gamev1.Reason_REASON_ABANDONMENT {
					t.Errorf("with the default window the game ended by %v, want abandonment", got)
				}
				return
			}
			active, err := c.Lobby.ListActiveMatches(me.Context(t.Context()), &lobbyv1.ListActiveMatchesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if ms := active.GetMatches(); len(ms) != 1 || ms[0].GetMatchId() != id {
				t.Fatalf("unfinished games %v, want %s", ms, id)
			}
			res, err := autoplay.Seat(t.Context(), c, me, id, autoplay.Random(3))
			if err != nil {
				t.Fatal(err)
			}
			if res.Plies <= 2 || res.Outcome.GetReason() == gamev1.Reason_REASON_ABANDONMENT || res.Outcome.GetResult() == gamev1.Result_RESULT_ONGOING {
				t.Errorf("the resumed game ended %v after %d plies, want it played on to its end", res.Outcome, res.Plies)
			}
		})
	}
}

// waitFinished polls the match until it is over.
func waitFinished(t *testing.T, c *client.Client, me client.Player, id string) *matchv1.Match {
	t.Helper()
	deadline := testenv.Deadline(t)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for {
		resp, err := c.Match.GetMatch(me.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: id})
		if err == nil && resp.GetMatch().GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
			return resp.GetMatch()
		}
		if time.Now().After(deadline) {
			t.Fatalf("match %s not over (err %v): %v", id, err, resp.GetMatch().GetStatus())
		}
		<-poll.C
	}
}

// Resuming from the start screen seats everyone of this keyboard and names
// the real opponent, whatever --vs says this time: a game at one keyboard
// comes back with both seats (the second player signed in again from the
// identities file), a game against bot:hard is titled so even when this
// run said bot:easy.
func TestResumeSeatsAndTitleFollowTheMatch(t *testing.T) {
	t.Parallel()
	c, _, ctx := clitest.StartLocal(t)
	ids := filepath.Join(t.TempDir(), "identities.json")
	me, err := c.Identity(t.Context(), ids, "local", "Ana")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Identity(t.Context(), ids, "local#2", "Player 2")
	if err != nil {
		t.Fatal(err)
	}
	atKeyboard := &tables{c: c, me: me, second: second, opp: opponent{local: true}, game: gamev1.Game_GAME_QUORIDOR, variant: "standard"}
	localID, _, err := atKeyboard.localMatch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{
		Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_HARD, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	active, err := c.Lobby.ListActiveMatches(me.Context(ctx), &lobbyv1.ListActiveMatchesRequest{})
	if err != nil {
		t.Fatal(err)
	}

	// The bot is named with its level's ladder rating (measured in Quoridor standard).
	vs, err := c.Lobby.ListVariants(ctx, &lobbyv1.ListVariantsRequest{Game: gamev1.Game_GAME_QUORIDOR})
	if err != nil {
		t.Fatal(err)
	}
	hardTitle := ""
	for _, r := range vs.GetVariants()[0].GetBotRatings() {
		if r.GetLevel() == gamev1.BotLevel_BOT_LEVEL_HARD {
			hardTitle = fmt.Sprintf("vs Bot (hard · rating %d)", r.GetRating())
		}
	}
	if vs.GetVariants()[0].GetId() != "standard" || hardTitle == "" {
		t.Fatalf("Quoridor standard's hard level has no rating: %v", vs.GetVariants()[0])
	}

	// This run: `play --vs bot:easy`, so no second player was signed in.
	run := &tables{c: c, me: me, opp: opponent{level: gamev1.BotLevel_BOT_LEVEL_EASY, render: "vs Bot (easy)"},
		secondID: client.KnownIdentity(ids, "local#2")}
	run.loadSecond = func() (client.Player, error) { return c.Identity(ctx, ids, "local#2", "") }
	tests := []struct {
		id        string
		wantSeats int
		wantTitle string
	}{
		{localID, 2, "two players, one keyboard"},
		{bot.GetMatchId(), 1, hardTitle}, // with its ladder rating in Quoridor standard
	}
	for _, tt := range tests {
		tb, err := run.resume(ctx, active.GetMatches(), tt.id)
		if err != nil {
			t.Fatalf("resume %s: %v", tt.id, err)
		}
		if len(tb.Seats) != tt.wantSeats || tb.Title != tt.wantTitle {
			t.Errorf("resume %s: %d seats titled %q, want %d titled %q", tt.id, len(tb.Seats), tb.Title, tt.wantSeats, tt.wantTitle)
		}
		for _, s := range tb.Seats {
			s.(*client.Stream).Close()
		}
	}
}

// play --resume with nothing to resume says so and starts nothing (it
// started a new bot game before, so a player whose game was lost by
// abandonment never learned it).
func TestResumeWithNothingToResume(t *testing.T) {
	t.Parallel()
	c, me, ctx := clitest.StartLocal(t)
	var out, errOut strings.Builder
	e := &cli.Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}
	tb := &tables{c: c, me: me, local: true, dataDir: "/tmp/d", opp: opponent{level: gamev1.BotLevel_BOT_LEVEL_EASY}, game: gamev1.Game_GAME_QUORIDOR, variant: "standard"}
	if err := runTUI(ctx, e, tb, false, true); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"No unfinished game to resume on this computer", "history --data-dir /tmp/d", "play --data-dir /tmp/d` starts a new one"} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q does not say %q", got, want)
		}
	}
	active, err := c.Lobby.ListActiveMatches(me.Context(ctx), &lobbyv1.ListActiveMatchesRequest{})
	if err != nil || len(active.GetMatches()) != 0 {
		t.Errorf("unfinished games after it: %v, %v; want none started", active.GetMatches(), err)
	}
}
