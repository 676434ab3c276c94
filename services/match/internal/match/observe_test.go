package match_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// Messages on a match's channel that no commit wrote — another player in a
// seat, a seat count of 5, an event seq that is not the next, another
// match's id — are not taken into an instance's cache: the real commit of
// that version, published next, is; the cache agrees with the store, and
// the instance's next action neither panics nor writes anything forged.
func TestObserveTakesOnlyWhatACommitWrote(t *testing.T) {
	t.Parallel()
	forgeries := []struct {
		name   string
		forge  func(st *match.State)
		seqOff int64
	}{
		{"another player in seat 1", func(st *match.State) { st.Seats[0].PlayerID, st.Remaining[0] = "mallory", 3_600_000 }, 1},
		{"five players", func(st *match.State) { st.Players = 5 }, 1},
		{"a seq that is not the next", func(st *match.State) { st.Remaining[0] = 3_600_000 }, 7},
		{"another match's id", func(st *match.State) { st.ID = "other" }, 1},
	}
	for _, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, 2, redisstore.Options{}, match.Config{})
			a, b := e.svcs[0], e.svcs[1]
			ctx := t.Context()
			st, err := a.Create(ctx, match.CreateParams{RequestID: "fg-" + t.Name(), Game: engine.Quoridor,
				Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}},
				Clock: &match.TimeControl{BaseMS: 60_000}})
			if err != nil {
				t.Fatal(err)
			}
			id := st.ID
			feed, _, _, err := a.Follow(ctx, id, 0) // A follows the match (a player's stream)
			if err != nil {
				t.Fatal(err)
			}
			defer feed.Close()
			e.play(a, id)
			e.play(a, id)
			cur, _, err := a.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			forged := *cur
			forged.Seats = cur.Seats
			f.forge(&forged)
			forged.LastSeq = cur.LastSeq + f.seqOff
			sj, _ := json.Marshal(&forged)
			ej, _ := json.Marshal(match.Event{MatchID: id, Seq: cur.LastSeq + f.seqOff, Kind: match.EventDrawDeclined, Plies: len(cur.Plies), Seat: engine.Second})
			if err := e.rdb.Publish(ctx, e.store.Channel(id), fmt.Sprintf("#%d 1\n%s\n%s", cur.Version+1, ej, sj)).Err(); err != nil {
				t.Fatal(err)
			}
			// The real commit of that version, made on B and published after.
			if _, err := b.Join(ctx, id, engine.Second); err != nil {
				t.Fatal(err)
			}
			tst, tpos := e.truth(id)
			testenv.Eventually(t, 5*time.Second, "A's cache at the real commit", func() bool {
				c, _, _ := a.CachedForTest(id)
				return c != nil && c.Version == tst.Version
			})
			cst, cpos, _ := a.CachedForTest(id)
			if d := sameAs(cst, cpos, tst, tpos); d != "" {
				t.Fatalf("A's cache after the forgery and the real v%d: %s", tst.Version, d)
			}
			e.play(a, id) // decided on the cache, without reading
			tst, _ = e.truth(id)
			if tst.Seats[0].PlayerID != "alice" || tst.Seats[1].Conn != match.Connected || tst.Remaining[0] > 60_000 {
				t.Errorf("stored after A's ply: seat 1 %q, seat 2 %v, clock %d ms; want alice, bob connected, at most 60000",
					tst.Seats[0].PlayerID, tst.Seats[1].Conn, tst.Remaining[0])
			}
		})
	}
}

// A finished match does not stay cached: a Get of it leaves nothing, and
// an instance that cached it without following it while it ended
// elsewhere drops it once it has gone unused for CacheIdle.
func TestFinishedMatchesLeaveTheCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 3, redisstore.Options{}, match.Config{CacheIdle: time.Minute})
	a, b, c := e.svcs[0], e.svcs[1], e.svcs[2]
	ctx := t.Context()
	st := e.create(a, nil)
	e.play(b, st.ID)
	e.play(c, st.ID) // c caches the match and does not follow it
	if err := b.Resign(ctx, st.ID, engine.First); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Get(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	if n := a.CacheLenForTest(); n != 0 {
		t.Errorf("a Get of the finished match left %d entries cached", n)
	}
	if n := c.CacheLenForTest(); n != 1 {
		t.Fatalf("c caches %d matches, want the one it played on", n)
	}
	c.EvictIdleForTest(e.clock.Now().Add(-time.Minute).UnixMilli())
	if n := c.CacheLenForTest(); n != 1 {
		t.Errorf("c dropped a match used within CacheIdle: %d left", n)
	}
	e.clock.Advance(2 * time.Minute)
	c.EvictIdleForTest(e.clock.Now().Add(-time.Minute).UnixMilli())
	if n := c.CacheLenForTest(); n != 0 {
		t.Errorf("c still caches %d matches unused for longer than CacheIdle", n)
	}
}
