package match_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// refusingBot fails every request, as a bot service that is down
// everywhere or refuses the view.
type refusingBot struct {
	calls  atomic.Int64
	player atomic.Value // the PlayerID of the last request
	seeds  sync.Map     // match id -> the seed of its first request
}

func (b *refusingBot) SelectPly(_ context.Context, req match.BotRequest) (match.BotAnswer, error) {
	b.calls.Add(1)
	b.player.Store(req.PlayerID)
	b.seeds.LoadOrStore(req.MatchID, req.Seed)
	return match.BotAnswer{}, errors.New("rpc error: code = InvalidArgument desc = view refused")
}

// refusedService is a match service over the test Redis whose bot is bot,
// playing a fallback ply after fallbackAfter failed asks; run starts its
// sweeper (the bot is first asked when a turn falls due).
func refusedService(t *testing.T, bot *refusingBot, fallbackAfter int) (svc *match.Service, run func()) {
	rdb, prefix := testenv.Redis(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	hub := redisstore.NewHub(ctx, store, nil)
	svc = match.NewService(match.Deps{Store: store, Hub: hub, Rules: match.Registry{}, Bot: bot}, match.Config{BotFallbackAfter: fallbackAfter})
	hub.OnCommit(svc.Observe)
	wg.Go(func() { _ = hub.Run(ctx) })
	return svc, func() { wg.Go(func() { _ = svc.Run(ctx) }) }
}

// A bot seat whose bot keeps failing does not stall a game without a
// clock: the sweeper asks it when its turn falls due, and after
// BotFallbackAfter failed asks the service plays a legal ply for it.
func TestBotThatKeepsFailingGetsAFallbackPly(t *testing.T) {
	t.Parallel()
	bot := &refusingBot{}
	svc, run := refusedService(t, bot, 2)
	st, err := svc.Create(t.Context(), match.CreateParams{RequestID: fmt.Sprintf("fallback-%d", time.Now().UnixNano()), Game: engine.Quoridor,
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {DisplayName: "Bot", BotLevel: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	// The first ply makes it the bot's turn before Run runs, so the bot is
	// first asked by the sweeper when the turn's deadline (now + BotLease,
	// 5 s) falls due: that deadline once lay decades ahead.
	if _, _, err := svc.SubmitPly(t.Context(), st.ID, engine.First, 1, "e2"); err != nil {
		t.Fatal(err)
	}
	run()
	var got *match.State
	testenv.Eventually(t, 15*time.Second, "the bot's fallback ply", func() bool {
		got, _, err = svc.Get(t.Context(), st.ID)
		return err == nil && len(got.Plies) >= 2
	})
	if got.Plies[1].Seat != engine.Second {
		t.Errorf("ply 2 by seat %v, want the bot's", got.Plies[1].Seat)
	}
	if n := bot.calls.Load(); n < 2 {
		t.Errorf("the bot was asked %d times before the fallback, want at least 2", n)
	}
	// The bot shares its search slots by player: it is told whose game asks.
	if p := bot.player.Load(); p != "alice" {
		t.Errorf("the bot was asked for player %q, want alice, who faces it", p)
	}
}

// Two games reaching the same position ask the bot with different seeds:
// the easy bot, which picks at random among its best plies, does not
// answer every game the same way.
func TestBotSeedDiffersByMatch(t *testing.T) {
	t.Parallel()
	bot := &refusingBot{}
	svc, run := refusedService(t, bot, 1)
	var ids []string
	for i := range 2 {
		st, err := svc.Create(t.Context(), match.CreateParams{RequestID: fmt.Sprintf("seed-%d-%d", i, time.Now().UnixNano()), Game: engine.Quoridor,
			Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {DisplayName: "Bot", BotLevel: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.SubmitPly(t.Context(), st.ID, engine.First, 1, "e2"); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	run()
	var seeds [2]any
	testenv.Eventually(t, 15*time.Second, "the bot asked in both games", func() bool {
		var ok0, ok1 bool
		seeds[0], ok0 = bot.seeds.Load(ids[0])
		seeds[1], ok1 = bot.seeds.Load(ids[1])
		return ok0 && ok1
	})
	if seeds[0] == seeds[1] {
		t.Errorf("both games asked the bot with seed %v for the same position", seeds[0])
	}
}
