package scaletest

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// TestFaultBotKilled: the bot instance working on an expert bot's ply is
// killed; the match asks again through the balancer, another bot instance
// answers, and the game goes on.
func TestFaultBotKilled(t *testing.T) {
	if testing.Short() {
		return
	}
	c := Start(t, Options{Lobbies: 1, Matches: 1, Bots: 2})
	lc, err := client.Dial(c.LobbyAddrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	mc, err := client.Dial(c.MatchAddrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	p, err := lc.SignIn(t.Context(), "botfault")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := lc.Lobby.PlayBot(p.Context(t.Context()), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR,
		Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EXPERT, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	st, err := mc.Join(t.Context(), p, resp.GetMatchId(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		killed      *Proc
		killedAt    time.Time
		botPlies    int // bot plies after the kill
		sent        int32
		botAnswered time.Duration
		asked       <-chan string // the backend of the request for ply 4
	)
	for botPlies < 2 {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			t.Fatalf("match ended before the bot played twice after the kill")
		}
		if err != nil {
			t.Fatal(err)
		}
		var v *gamev1.GameView
		switch {
		case m.GetSnapshot() != nil:
			v = m.GetSnapshot().GetView()
		case m.GetEvent().GetPlyPlayed() != nil:
			pp := m.GetEvent().GetPlyPlayed()
			v = pp.GetView()
			if pp.GetPly().GetSeat() == gamev1.Seat_SEAT_SECOND && killed != nil {
				if botPlies == 0 {
					botAnswered = time.Since(killedAt)
				}
				botPlies++
			}
			if pp.GetPly().GetSeat() == gamev1.Seat_SEAT_FIRST && pp.GetPly().GetNumber() == 3 && killed == nil {
				// The bot is thinking once the request for ply 4 has gone
				// out (the match gives it 500 ms).
				var backend string
				select {
				case backend = <-asked:
				case <-time.After(time.Until(Deadline(t))):
					t.Fatal("the match never asked a bot for ply 4")
				}
				for _, b := range c.Bot {
					if b.Addr == backend {
						killed = b
					}
				}
				if killed == nil {
					t.Fatalf("no bot backend in use (%q)", backend)
				}
				killed.Kill()
				killedAt = time.Now()
				t.Logf("killed %s while it thought about ply 4", killed.Name)
			}
		case m.GetEvent().GetGameEnded() != nil:
			t.Fatalf("game ended: %v", m.GetEvent().GetGameEnded().GetOutcome())
		case m.GetPlyRejected() != nil:
			t.Fatalf("ply rejected: %v", m.GetPlyRejected())
		}
		if v == nil || v.GetToMove() != gamev1.Seat_SEAT_FIRST || v.GetPlyCount()+1 <= sent {
			continue
		}
		ev, err := games.DecodeView(engine.Quoridor, v.GetEncoding())
		if err != nil {
			t.Fatal(err)
		}
		sent = v.GetPlyCount() + 1
		if sent == 3 {
			asked = c.botLB.NextWrite()
		}
		ply := load.ChoosePawnStep(ev, gamev1.Seat_SEAT_FIRST, false, rng)
		if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: sent, Notation: ply}}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("the bot's ply came %v after the kill", botAnswered.Round(time.Millisecond))
	var other *Proc
	for _, b := range c.Bot {
		if b != killed {
			other = b
		}
	}
	if !strings.Contains(other.Log(), "SelectPly") {
		t.Errorf("%s never answered a SelectPly", other.Name)
	}
}
