package match_test

import (
	"testing"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// TestLiveSummariesDerived: a live match's summary is derived from its
// state, plies and first ply when listed, none is kept in the index's
// live:sum (but with Options.Compat, for versions that read it there),
// and a match whose keys are gone leaves the index when listed.
func TestLiveSummariesDerived(t *testing.T) {
	t.Parallel()
	for _, compat := range []bool{false, true} {
		e := newEnv(t, 1, redisstore.Options{Compat: compat}, match.Config{})
		svc := e.svcs[0]
		ctx := t.Context()
		st := e.create(svc, &match.TimeControl{BaseMS: 60_000, IncrementMS: 1_000})
		e.clock.Advance(1500 * 1e6)
		first := e.play(svc, st.ID)
		e.play(svc, st.ID)
		sumKey := e.store.IndexKeys(st.ID)[4]
		if n := e.rdb.HLen(ctx, sumKey).Val(); n != map[bool]int64{false: 0, true: 1}[compat] {
			t.Errorf("compat %v: live:sum holds %d summaries", compat, n)
		}
		for _, player := range []string{"", "alice", "bob"} {
			sums, err := svc.ListMatches(ctx, player, 10)
			if err != nil || len(sums) != 1 {
				t.Fatalf("compat %v: %q's live matches: %+v, %v", compat, player, sums, err)
			}
			s := sums[0]
			if s.ID != st.ID || s.Game != string(st.Game) || s.Variant != st.Variant || s.Plies != 2 ||
				s.Status != match.StatusInProgress || s.Clock == nil || *s.Clock != *st.Clock ||
				s.CreatedAt != st.CreatedAt || s.StartedAt != first.At || s.StartedAt == s.CreatedAt ||
				len(s.Seats) != 2 || s.Seats[0].PlayerID != "alice" || s.Seats[1].DisplayName != "Bob" {
				t.Errorf("compat %v: %q's summary %+v of %+v (first ply at %d)", compat, player, s, st, first.At)
			}
		}
		// Keys gone (expired): the entry leaves the index.
		if err := e.rdb.Del(ctx, e.store.MatchKeys(st.ID)...).Err(); err != nil {
			t.Fatal(err)
		}
		if sums, err := svc.ListMatches(ctx, "", 10); err != nil || len(sums) != 0 {
			t.Fatalf("compat %v: listed with its keys gone: %+v, %v", compat, sums, err)
		}
		if n := e.rdb.ZCard(ctx, e.store.IndexKeys(st.ID)[3]).Val(); n != 0 {
			t.Errorf("compat %v: the index still holds %d entries", compat, n)
		}
		if n := e.rdb.HLen(ctx, sumKey).Val(); n != 0 {
			t.Errorf("compat %v: live:sum still holds %d summaries", compat, n)
		}
	}
}
