package matchmaking

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	platformtestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// fakeClock is an injected clock tests move by hand.
type fakeClock struct{ ns atomic.Int64 }

func newClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Unix(1_800_000_000, 0).UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Add(d time.Duration) { c.ns.Add(int64(d)) }

func newMM(t testing.TB, rdb redis.UniversalClient, prefix string, cfg Config) (*Matchmaker, *testenv.Matches) {
	t.Helper()
	cfg.Prefix = prefix
	m := &testenv.Matches{}
	return New(rdb, testenv.Variants, m, cfg), m
}

var (
	ratedQ  = Queue{Game: engine.Quoridor, Variant: "standard", Clock: lobby.TimeControl{BaseMS: 180000, IncrementMS: 2000}, Rated: true}
	casualQ = Queue{Game: engine.Quoridor, Variant: "standard", Clock: lobby.TimeControl{BaseMS: 180000, IncrementMS: 2000}}
)

func player(rating float64) lobby.Player {
	return lobby.Player{ID: lobby.NewID("p_"), DisplayName: "P", Rating: rating}
}

func TestWindowAt(t *testing.T) {
	t.Parallel()
	w := Window{Start: 100, Max: 400, Widen: 30 * time.Second}
	tests := []struct {
		give time.Duration
		want float64
	}{{0, 100}, {10 * time.Second, 200}, {15 * time.Second, 250}, {30 * time.Second, 400}, {time.Hour, 400}}
	for _, tt := range tests {
		if got := w.At(tt.give); got != tt.want {
			t.Errorf("At(%v) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

func TestEnqueueValidation(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m, _ := newMM(t, rdb, prefix, Config{})
	tests := []struct {
		name string
		give Queue
	}{
		{"unknown variant", Queue{Game: engine.Quoridor, Variant: "x"}},
		{"rated unrated variant (C7)", Queue{Game: engine.Corners, Variant: "diagonal-3x4", Rated: true}},
		{"one-player variant", Queue{Game: engine.Corners, Variant: "training"}},
		{"bad clock", Queue{Game: engine.Quoridor, Variant: "standard", Clock: lobby.TimeControl{BaseMS: 1}}},
	}
	for _, tt := range tests {
		if _, err := m.Enqueue(t.Context(), tt.give, player(1500)); !errors.Is(err, lobby.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tt.name, err)
		}
	}
	tk, err := m.Enqueue(t.Context(), Queue{Game: engine.Corners, Variant: "classic-3x3", Rated: true}, player(1500))
	if err != nil || tk.Queue.Clock != (lobby.TimeControl{BaseMS: 300000, IncrementMS: 3000}) {
		t.Errorf("no clock takes the variant's default (C7): %+v, %v", tk.Queue.Clock, err)
	}
}

func mustMatched(t *testing.T, m *Matchmaker, tk Ticket) *Matched {
	t.Helper()
	res, err := m.Result(t.Context(), tk)
	if err != nil || res == nil {
		t.Fatalf("ticket of %s: %+v, %v; want matched", tk.Player.ID, res, err)
	}
	return res
}

func TestTwoPlayersMatched(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	clock := newClock()
	m, fake := newMM(t, rdb, prefix, Config{Now: clock.Now})
	ctx := t.Context()
	a, b := player(1500), player(1580)
	ta, err := m.Enqueue(ctx, ratedQ, a)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := m.Enqueue(ctx, ratedQ, b)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Wave(ctx)
	if err != nil || st.Pairs != 1 {
		t.Fatalf("wave %+v, %v; want one pair", st, err)
	}
	ra, rb := mustMatched(t, m, ta), mustMatched(t, m, tb)
	if ra.MatchID != rb.MatchID || ra.Seat == rb.Seat || ra.Opponent.PlayerID != b.ID || rb.Opponent.PlayerID != a.ID {
		t.Fatalf("results %+v and %+v disagree", ra, rb)
	}
	spec := fake.Specs()[ra.MatchID]
	if !spec.Rated || spec.Clock != ratedQ.Clock || fake.Calls() != 1 {
		t.Errorf("match %+v (calls %d)", spec, fake.Calls())
	}
	if st, _ := m.Wave(ctx); st.Pairs != 0 || st.Tickets != 0 {
		t.Errorf("second wave %+v, want an empty queue", st)
	}
}

func TestWindowWidening(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		q         Queue
		gap       float64
		wait      time.Duration
		wantPairs int
	}{
		{"gap 150 at once: outside ±100", ratedQ, 150, 0, 0},
		{"gap 150 after 10 s: ±200", ratedQ, 150, 10 * time.Second, 1},
		{"gap 250 after 10 s: outside ±200", ratedQ, 250, 10 * time.Second, 0},
		{"gap 250 after 15 s: ±250", ratedQ, 250, 15 * time.Second, 1},
		{"rated gap 700 after 60 s: never", ratedQ, 700, time.Minute, 0},
		{"casual gap 700 after 30 s: anyone", casualQ, 700, 30 * time.Second, 1},
		{"casual gap 700 after 20 s: not yet", casualQ, 700, 20 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rdb, prefix := testenv.Redis(t)
			clock := newClock()
			m, _ := newMM(t, rdb, prefix, Config{Now: clock.Now, TicketTTL: time.Hour})
			if _, err := m.Enqueue(t.Context(), tt.q, player(1500)); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Enqueue(t.Context(), tt.q, player(1500+tt.gap)); err != nil {
				t.Fatal(err)
			}
			clock.Add(tt.wait)
			st, err := m.Wave(t.Context())
			if err != nil || st.Pairs != tt.wantPairs {
				t.Fatalf("wave %+v, %v; want %d pairs", st, err, tt.wantPairs)
			}
		})
	}
}

func TestPairsMinimiseDifference(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	clock := newClock()
	m, _ := newMM(t, rdb, prefix, Config{Now: clock.Now})
	ctx := t.Context()
	ratings := []float64{1500, 1590, 1510, 1600}
	tks := make([]Ticket, len(ratings))
	for i, r := range ratings {
		var err error
		if tks[i], err = m.Enqueue(ctx, ratedQ, player(r)); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := m.Wave(ctx); err != nil || st.Pairs != 2 {
		t.Fatalf("wave %+v, %v", st, err)
	}
	// 1500 with 1510 and 1590 with 1600, not 1510 with 1590.
	want := map[int]int{0: 2, 2: 0, 1: 3, 3: 1}
	for i, j := range want {
		if got := mustMatched(t, m, tks[i]).Opponent.PlayerID; got != tks[j].Player.ID {
			t.Errorf("%v paired with %s, want the %v player", ratings[i], got, ratings[j])
		}
	}
}

func TestCancelExpireReplace(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	clock := newClock()
	m, _ := newMM(t, rdb, prefix, Config{Now: clock.Now, TicketTTL: 10 * time.Second})
	ctx := t.Context()

	// Cancel: the ticket leaves the queue.
	a, b := player(1500), player(1500)
	ta, _ := m.Enqueue(ctx, ratedQ, a)
	if ok, err := m.Cancel(ctx, ta); !ok || err != nil {
		t.Fatalf("cancel = %v, %v", ok, err)
	}
	tb, _ := m.Enqueue(ctx, ratedQ, b)
	if st, _ := m.Wave(ctx); st.Pairs != 0 || st.Tickets != 1 {
		t.Fatalf("after cancel: wave %+v, want b alone", st)
	}

	// Replace: a second ticket of b in the same queue ends the first.
	tb2, _ := m.Enqueue(ctx, ratedQ, b)
	if _, err := m.Result(ctx, tb); !errors.Is(err, lobby.ErrReplaced) {
		t.Fatalf("replaced ticket: %v, want ErrReplaced", err)
	}

	// Expiry: b stops heartbeating; c keeps heartbeating; after the TTL
	// b's ticket is dropped and c stays.
	c := player(1900)
	clock.Add(5 * time.Second)
	tc, _ := m.Enqueue(ctx, ratedQ, c)
	clock.Add(6 * time.Second)
	if ok, _ := m.Heartbeat(ctx, tc); !ok {
		t.Fatal("heartbeat of a live ticket failed")
	}
	st, err := m.Wave(ctx)
	if err != nil || st.Expired != 1 || st.Tickets != 1 || st.Pairs != 0 {
		t.Fatalf("wave %+v, %v; want b expired, c waiting", st, err)
	}
	if _, err := m.Result(ctx, tb2); !errors.Is(err, ErrExpired) {
		t.Fatalf("b's ticket: %v, want ErrExpired", err)
	}
	if ok, _ := m.Heartbeat(ctx, tb2); ok {
		t.Error("heartbeat revived an expired ticket")
	}
	if ok, _ := m.Cancel(ctx, tb2); ok {
		t.Error("cancel of an expired ticket reported success")
	}
}

// TestTwoInstancesNobodyTwice: 1,000 tickets — 900 players in one queue
// and 50 players queued in two — paired by two matchmakers (two lobby
// instances) running waves at once. Nobody is in two matches, and every
// pair claimed has its match. Also (with 200 tickets) with every script
// run twice (a client retry after a lost reply), which a loaded machine
// caused once: then pairs were claimed without a match and their players
// told "elsewhere".
func TestTwoInstancesNobodyTwice(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		replay           bool
		players, doubles int
	}{{false, 950, 50}, {true, 190, 10}} {
		t.Run(fmt.Sprintf("scripts run twice=%v", tt.replay), func(t *testing.T) {
			t.Parallel()
			twoInstances(t, tt.replay, tt.players, tt.doubles)
		})
	}
}

// twoInstances queues players, the first doubles of them in both queues.
func twoInstances(t *testing.T, replay bool, players, doubles int) {
	rdb, prefix := testenv.Redis(t)
	if replay {
		r := platformtestenv.OpenRedis(t, "")
		r.AddHook(replayScripts{})
		rdb = r
	}
	clock := newClock()
	shared := &testenv.Matches{}
	cfg := Config{Prefix: prefix, Now: clock.Now, TicketTTL: time.Hour}
	mms := []*Matchmaker{New(rdb, testenv.Variants, shared, cfg), New(rdb, testenv.Variants, shared, cfg)}
	ctx := t.Context()
	queues := []Queue{ratedQ, {Game: engine.Quoridor, Variant: "limit200", Rated: true}}
	var tickets []Ticket
	for i := range players {
		p := player(1450 + rand.Float64()*100)
		n := 1
		if i < doubles {
			n = 2
		}
		for k := range n {
			tk, err := mms[i%2].Enqueue(ctx, queues[(i+k)%2], p)
			if err != nil {
				t.Fatal(err)
			}
			tickets = append(tickets, tk)
		}
	}
	if len(tickets) != players+doubles {
		t.Fatalf("%d tickets", len(tickets))
	}
	var wg sync.WaitGroup
	var claimed atomic.Int64
	for _, m := range mms {
		wg.Go(func() {
			for idle := 0; idle < 3; {
				st, err := m.Wave(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				claimed.Add(int64(st.Pairs))
				if st.Pairs == 0 {
					idle++
				}
			}
		})
	}
	wg.Wait()
	specs := shared.Specs()
	if int64(len(specs)) != claimed.Load() || shared.Calls() != len(specs) {
		t.Fatalf("%d matches, %d calls, %d claimed pairs", len(specs), shared.Calls(), claimed.Load())
	}
	inMatch := map[string]string{}
	for id, s := range specs {
		for _, p := range []string{s.First.PlayerID, s.Second.PlayerID} {
			if prev, ok := inMatch[p]; ok {
				t.Fatalf("player %s in matches %s and %s", p, prev, id)
			}
			inMatch[p] = id
		}
	}
	if len(specs) < players/2-5 {
		t.Errorf("only %d pairs of %d compatible players", len(specs), players)
	}
	// Every ticket is matched, moved elsewhere, or one of at most one
	// leftover per queue.
	waiting := 0
	for _, tk := range tickets {
		res, err := mms[0].Result(ctx, tk)
		switch {
		case res != nil:
			if inMatch[tk.Player.ID] != res.MatchID {
				t.Fatalf("ticket says match %s, the player is in %s", res.MatchID, inMatch[tk.Player.ID])
			}
		case errors.Is(err, lobby.ErrReplaced):
			if inMatch[tk.Player.ID] == "" {
				t.Fatalf("ticket of %s removed for a match that does not exist", tk.Player.ID)
			}
		case err == nil:
			waiting++
		default:
			t.Fatal(err)
		}
	}
	if waiting > len(queues) {
		t.Errorf("%d tickets left waiting, want at most one per queue", waiting)
	}
}

// replayScripts runs every script a second time, as the client does when
// a script's reply does not arrive within its read timeout although Redis
// ran it: go-redis sends the command again (a loaded machine made this
// happen in TestTwoInstancesNobodyTwice).
type replayScripts struct{}

func (replayScripts) DialHook(next redis.DialHook) redis.DialHook { return next }
func (replayScripts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (replayScripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if n := cmd.Name(); err == nil && (n == "evalsha" || n == "eval") {
			return next(ctx, cmd)
		}
		return err
	}
}

// TestScriptsRunTwice: every script may run twice for one call (a retry
// after a lost reply) and the outcome is that of one run: an enqueued
// ticket is not "replaced" by itself, a claimed pair gets its match (the
// second run used to find the tickets gone and report nothing claimed: the
// players were dropped from the queue, marked busy, told "paired", and no
// match was ever created), a cancel removes the ticket, and a reservation
// holds.
func TestScriptsRunTwice(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t)
	rdb := platformtestenv.OpenRedis(t, "")
	rdb.AddHook(replayScripts{})
	clock := newClock()
	m, fake := newMM(t, rdb, prefix, Config{Now: clock.Now})
	ctx := t.Context()

	a, b, c := player(1500), player(1520), player(1500)
	ta, err := m.Enqueue(ctx, ratedQ, a)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := m.Result(ctx, ta); res != nil || err != nil {
		t.Fatalf("a ticket enqueued once (its script run twice): %+v, %v; want waiting", res, err)
	}
	tb, err := m.Enqueue(ctx, ratedQ, b)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.Wave(ctx)
	if err != nil || st.Pairs != 1 {
		t.Fatalf("wave %+v, %v; want the pair claimed", st, err)
	}
	ra, rb := mustMatched(t, m, ta), mustMatched(t, m, tb)
	if ra.MatchID != rb.MatchID || fake.Calls() != 1 {
		t.Fatalf("results %+v, %+v after %d CreateMatch calls; want one match", ra, rb, fake.Calls())
	}
	// The players are in that match: neither can queue again.
	if _, err := m.Enqueue(ctx, ratedQ, a); !errors.As(err, new(*lobby.BusyError)) {
		t.Errorf("enqueue of a player in a match: %v, want a BusyError", err)
	}

	tc, err := m.Enqueue(ctx, ratedQ, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Cancel(ctx, tc); err != nil {
		t.Errorf("cancel of a waiting ticket: %v", err)
	}
	if st, err := m.Wave(ctx); err != nil || st.Tickets != 0 {
		t.Errorf("wave after the cancel %+v, %v; want an empty queue", st, err)
	}

	if err := m.Reserve(ctx, "room-1", c.ID); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	if err := m.Reserve(ctx, "room-2", c.ID); !errors.As(err, new(*lobby.BusyError)) {
		t.Errorf("second reservation: %v, want a BusyError", err)
	}
}

func TestWatchMatchedAndDisconnect(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	// The wait is measured on a fake clock, moved by hand: each update
	// moves it 10 s on, so the window widens 100, 200, 300, 400 whatever
	// the machine's speed (with a real clock and a 50 ms widening a busy
	// machine skipped straight to 400).
	clock := newClock()
	cfg := Config{WaveInterval: 5 * time.Millisecond, UpdateEvery: 5 * time.Millisecond, TicketTTL: time.Hour,
		BotOfferAfter: 15 * time.Second, Window: Window{Start: 100, Max: 400, Widen: 30 * time.Second}, Now: clock.Now}
	m, _ := newMM(t, rdb, prefix, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() { cancel(); <-done }()

	// Disconnect: a lonely watcher goes away and its ticket leaves.
	lone, err := m.Enqueue(ctx, ratedQ, player(3000))
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	var updates []Update
	clock.Add(10 * time.Second)
	_, err = m.Watch(wctx, lone, true, func(u Update) error {
		updates = append(updates, u)
		if u.Window >= 400 {
			wcancel() // the client closes the stream
		} else {
			clock.Add(10 * time.Second)
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Watch after disconnect: %v", err)
	}
	// The bot is offered once, with the first update after 15 s.
	want := []Update{{Window: 200, Waited: 10 * time.Second}, {Window: 300, Waited: 20 * time.Second, BotOffered: true},
		{Window: 400, Waited: 30 * time.Second}}
	if !slices.Equal(updates, want) {
		t.Errorf("updates %+v, want %+v", updates, want)
	}
	if ok, _ := m.Cancel(ctx, lone); ok {
		t.Error("the disconnected ticket was still queued")
	}

	// Two watchers are matched by the background waves.
	var wg sync.WaitGroup
	res := make([]*Matched, 2)
	errs := make([]error, 2)
	for i := range 2 {
		tk, err := m.Enqueue(ctx, casualQ, player(1500))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { res[i], errs[i] = m.Watch(ctx, tk, false, func(Update) error { return nil }) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || res[0].MatchID != res[1].MatchID {
		t.Fatalf("watch results %+v, %v", res, errs)
	}
}

// A ticket a pairing took out of its queue and never ended (its lobby
// died between the steps) ends its Watch with ErrMatchFailed after two
// heartbeats, so that the client queues again; a ticket out of its queue
// whose result says its match is being created ("paired") keeps waiting
// through any number of heartbeats.
func TestWatchTicketTakenAndLost(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m, _ := newMM(t, rdb, prefix, Config{TicketTTL: 60 * time.Millisecond, UpdateEvery: time.Hour})
	ctx := t.Context()
	take := func(tk Ticket) {
		t.Helper()
		qk := tk.Queue.String()
		n, err := unqueueScript.Run(ctx, rdb, []string{m.queueKey(qk, "t"), m.queueKey(qk, "q")}, tk.Player.ID, tk.ID).Int()
		if err != nil || n != 1 {
			t.Fatalf("take ticket %s: %d, %v", tk.ID, n, err)
		}
	}

	lost, err := m.Enqueue(ctx, casualQ, player(1500))
	if err != nil {
		t.Fatal(err)
	}
	take(lost)
	start := time.Now()
	if res, err := m.Watch(ctx, lost, false, func(Update) error { return nil }); !errors.Is(err, ErrMatchFailed) {
		t.Fatalf("Watch of a ticket taken and never ended: %+v, %v; want ErrMatchFailed", res, err)
	}
	t.Logf("lost ticket given up after %v (heartbeats every 20 ms)", time.Since(start).Round(time.Millisecond))

	paired, err := m.Enqueue(ctx, casualQ, player(1500))
	if err != nil {
		t.Fatal(err)
	}
	take(paired)
	if err := rdb.Set(ctx, m.resPrefix(paired.Player.ID)+paired.ID, "paired|pair_x", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond) // 15 heartbeats
	defer cancel()
	if res, err := m.Watch(wctx, paired, false, func(Update) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Watch of a ticket whose match is being created: %+v, %v; want it still waiting", res, err)
	}
}

func ExampleQueue_String() {
	fmt.Println(ratedQ)
	// Output: quoridor/standard/180000+2000/rated
}
