package rpc

import (
	"testing"

	"tabuleiro.dev/pkg/engine"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// TestSharedViews: the spectators' view of a match's latest event is
// shared; a seat's never is; an older event does not replace a newer one;
// the end of the match drops it.
func TestSharedViews(t *testing.T) {
	var c sharedViews
	ev := match.Event{MatchID: "m", Seq: 3, Kind: match.EventPly}
	v := &matchv1.MatchEvent{Seq: 3}
	c.put(engine.First, ev, v)
	if c.get(engine.NoSeat, ev) != nil {
		t.Fatal("a seat's view was shared")
	}
	c.put(engine.NoSeat, ev, v)
	if c.get(engine.NoSeat, ev) != v || c.get(engine.First, ev) != nil {
		t.Fatal("the spectators' view was not shared (or was given to a seat)")
	}
	old := match.Event{MatchID: "m", Seq: 2, Kind: match.EventPly}
	c.put(engine.NoSeat, old, &matchv1.MatchEvent{Seq: 2})
	if c.get(engine.NoSeat, ev) != v || c.get(engine.NoSeat, old) != nil {
		t.Fatal("an older event replaced the newer one")
	}
	c.put(engine.NoSeat, match.Event{MatchID: "m", Seq: 4, Kind: match.EventEnded}, &matchv1.MatchEvent{Seq: 4})
	if c.get(engine.NoSeat, ev) != nil || len(c.m) != 0 {
		t.Fatal("the match's end did not drop its view")
	}
}
