package matchmaking

import (
	"errors"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// A bot game (or a room's match) reserved for a queued player withdraws
// their tickets, so the queue can no longer pair them with a person.
func TestReserveWithdrawsTickets(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m, _ := newMM(t, rdb, prefix, Config{Now: newClock().Now})
	ctx := t.Context()
	a, b := player(1500), player(1500)
	ta, err := m.Enqueue(ctx, ratedQ, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Reserve(ctx, "bot-1", a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Result(ctx, ta); !errors.Is(err, lobby.ErrReplaced) {
		t.Fatalf("ticket after reserve: %v, want ErrReplaced", err)
	}
	if _, err := m.Enqueue(ctx, ratedQ, b); err != nil {
		t.Fatal(err)
	}
	if st, err := m.Wave(ctx); err != nil || st.Pairs != 0 {
		t.Fatalf("wave %+v, %v; want no pair with a player starting a bot game", st, err)
	}
	var busy *lobby.BusyError
	if _, err := m.Enqueue(ctx, casualQ, a); !errors.As(err, &busy) || !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("enqueue while a match is being created: %v, want BusyError", err)
	}
	if err := m.Release(ctx, "bot-1", a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enqueue(ctx, casualQ, a); err != nil {
		t.Fatalf("enqueue after release: %v", err)
	}
}

// A player queued in two queues at once, or queueing again right after a
// pairing, is never in two live matches; once the match ends they may
// queue again.
func TestOneLiveMatchPerPlayer(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	fake := &testenv.Matches{}
	m := New(rdb, testenv.Variants, fake, Config{Prefix: prefix, Now: newClock().Now, LiveMatches: fake.LiveMatches})
	ctx := t.Context()
	a, b, c := player(1500), player(1500), player(1500)
	q2 := Queue{Game: engine.Quoridor, Variant: "limit200", Rated: true}
	for _, e := range []struct {
		q Queue
		p lobby.Player
	}{{ratedQ, a}, {ratedQ, b}} {
		if _, err := m.Enqueue(ctx, e.q, e.p); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := m.Wave(ctx); err != nil || st.Pairs != 1 {
		t.Fatalf("wave %+v, %v", st, err)
	}
	// a queues again while their match is live: refused.
	if _, err := m.Enqueue(ctx, q2, a); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("enqueue during a live match: %v, want ErrPrecondition", err)
	}
	if err := m.Reserve(ctx, "bot-2", a.ID); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("bot game during a live match: %v, want ErrPrecondition", err)
	}
	for id := range fake.Specs() {
		fake.End(id)
	}
	if _, err := m.Enqueue(ctx, q2, a); err != nil {
		t.Fatalf("enqueue after the match ended: %v", err)
	}
	if _, err := m.Enqueue(ctx, q2, c); err != nil {
		t.Fatal(err)
	}
	if st, err := m.Wave(ctx); err != nil || st.Pairs != 1 {
		t.Fatalf("wave after the match ended %+v, %v", st, err)
	}
}

// Concurrent enqueues of one player in two queues with partners waiting in
// both, racing the waves: the player ends in one match at most.
func TestConcurrentQueuesOneMatch(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	fake := &testenv.Matches{}
	m := New(rdb, testenv.Variants, fake, Config{Prefix: prefix, Now: newClock().Now})
	ctx := t.Context()
	q2 := Queue{Game: engine.Quoridor, Variant: "limit200", Rated: true}
	for range 20 {
		a := player(1500)
		for _, q := range []Queue{ratedQ, q2} {
			if _, err := m.Enqueue(ctx, q, player(1500)); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for _, q := range []Queue{ratedQ, q2} {
			wg.Go(func() { _, _ = m.Enqueue(ctx, q, a) })
			wg.Go(func() {
				if _, err := m.Wave(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if _, err := m.Wave(ctx); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range fake.Specs() {
			if s.First.PlayerID == a.ID || s.Second.PlayerID == a.ID {
				n++
			}
		}
		if n > 1 {
			t.Fatalf("player in %d matches", n)
		}
	}
}

// An empty variant is the game's default: one queue with the explicit id.
func TestEmptyVariantIsDefault(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m, fake := newMM(t, rdb, prefix, Config{Now: newClock().Now})
	ctx := t.Context()
	ta, err := m.Enqueue(ctx, Queue{Game: engine.Quoridor}, player(1500))
	if err != nil || ta.Queue.Variant != "standard" {
		t.Fatalf("ticket %+v, %v; want variant standard", ta, err)
	}
	if _, err := m.Enqueue(ctx, Queue{Game: engine.Quoridor, Variant: "standard"}, player(1500)); err != nil {
		t.Fatal(err)
	}
	if st, err := m.Wave(ctx); err != nil || st.Pairs != 1 {
		t.Fatalf("wave %+v, %v; want the two paired", st, err)
	}
	for _, s := range fake.Specs() {
		if s.Variant != "standard" {
			t.Errorf("match variant %q", s.Variant)
		}
	}
}

// With ConcurrentMatches (the one-process mode) a player's unfinished
// games block nothing: reservations always succeed and mark nobody.
func TestConcurrentMatchesReserveNothing(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m, _ := newMM(t, rdb, prefix, Config{Now: newClock().Now, ConcurrentMatches: true})
	ctx := t.Context()
	a := player(1500)
	for _, ref := range []string{"bot-1", "bot-2", "room-3"} {
		if err := m.Reserve(ctx, ref, a.ID); err != nil {
			t.Fatalf("Reserve(%s): %v, want nil with ConcurrentMatches", ref, err)
		}
		if err := m.Confirm(ctx, ref, "match-"+ref, a.ID); err != nil {
			t.Fatalf("Confirm(%s): %v", ref, err)
		}
	}
	if _, err := m.Enqueue(ctx, casualQ, a); err != nil {
		t.Fatalf("enqueue with three live local games: %v, want queued", err)
	}
}

// With ConcurrentMatches a queue pairing still marks its players, and its
// match's confirmation swaps the pending mark for the match: once the
// match ends they queue again at once (the load tool's players could not
// start a second game for a minute, because the pending mark was never
// confirmed).
func TestConcurrentMatchesQueueAgainAfterGame(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	fake := &testenv.Matches{}
	m := New(rdb, testenv.Variants, fake, Config{Prefix: prefix, Now: newClock().Now,
		ConcurrentMatches: true, LiveMatches: fake.LiveMatches})
	ctx := t.Context()
	a, b := player(1500), player(1500)
	ta, err := m.Enqueue(ctx, casualQ, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enqueue(ctx, casualQ, b); err != nil {
		t.Fatal(err)
	}
	if st, err := m.Wave(ctx); err != nil || st.Pairs != 1 {
		t.Fatalf("wave %+v, %v; want one pair", st, err)
	}
	res := mustMatched(t, m, ta)
	var busy *lobby.BusyError
	if _, err := m.Enqueue(ctx, casualQ, a); !errors.As(err, &busy) || busy.Match != res.MatchID {
		t.Fatalf("enqueue during the queued game: %v, want BusyError naming match %s", err, res.MatchID)
	}
	fake.End(res.MatchID)
	for _, p := range []lobby.Player{a, b} {
		if _, err := m.Enqueue(ctx, casualQ, p); err != nil {
			t.Fatalf("enqueue of %s after the game ended: %v, want queued", p.ID, err)
		}
	}
}

// A player in a match begun before the upgrade to tags per player (their
// busy mark in {mm}:busy:<player>) stays busy after it: the mark is
// adopted with its expiry, and a mark the player's key holds already
// stays.
func TestAdoptLegacyMarks(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m, _ := newMM(t, rdb, prefix, Config{Now: newClock().Now})
	ctx := t.Context()
	a, b, c := player(1500), player(1500), player(1500)
	old := func(p lobby.Player) string { return prefix + "{mm}:busy:" + p.ID }
	for _, p := range []lobby.Player{a, b} {
		if err := rdb.Set(ctx, old(p), "match|m-old-"+p.ID, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Reserve(ctx, "room-new", b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enqueue(ctx, ratedQ, c); err != nil {
		t.Fatal(err)
	}
	n, err := m.AdoptLegacyMarks(ctx)
	if err != nil || n != 1 {
		t.Fatalf("adopted %d marks (%v), want a's", n, err)
	}
	var busy *lobby.BusyError
	if _, err := m.Enqueue(ctx, ratedQ, a); !errors.As(err, &busy) || busy.Match != "m-old-"+a.ID {
		t.Fatalf("enqueue of a player in a match begun before the upgrade: %v, want busy with m-old-%s", err, a.ID)
	}
	if ttl := rdb.PTTL(ctx, m.playerKey(a.ID, "busy")).Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("adopted mark's expiry %v, want what was left of an hour", ttl)
	}
	if err := m.Reserve(ctx, "room-2", b.ID); !errors.As(err, &busy) || busy.Match != "room-new" {
		t.Fatalf("b's own mark: %v, want busy with room-new", err)
	}
}
