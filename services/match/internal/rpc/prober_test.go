package rpc

import (
	"context"
	"errors"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// TestProberProbesAtTurns: a seat stream gets a probe at once; an event
// that gives it the move brings one (sent before the event) only when the
// last is ProbeEvery old or more; the idle timer waits probeIdleFactor
// ProbeEvery; a failed send ends the probes; a negative ProbeEvery sends
// none.
func TestProberProbesAtTurns(t *testing.T) {
	s := NewServer(nil, nil, nil)
	s.ProbeEvery = time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sent := make(chan uint64, 10)
	fail := false
	local := &localProbe{}
	p := s.probe(ctx, "m", engine.First, local, func(pr *matchv1.Probe) error {
		if fail {
			return errors.New("stream closed")
		}
		sent <- pr.GetId()
		return nil
	})
	var first uint64
	select {
	case first = <-sent:
	case <-time.After(30 * time.Second):
		t.Fatal("no probe at the start")
	}
	if _, ok := local.take(first); !ok {
		t.Fatal("the first probe is not the stream's pending one")
	}

	p.turn() // the last probe is a moment old
	if len(sent) != 0 {
		t.Fatal("a turn right after a probe brought another")
	}
	p.mu.Lock()
	p.last = p.last.Add(-time.Hour) // as if an hour had passed
	p.mu.Unlock()
	p.turn()
	if len(sent) != 1 {
		t.Fatalf("a turn an hour after the last probe brought %d probes, want 1 (sent at once)", len(sent))
	}
	if id := <-sent; id == first {
		t.Fatal("the turn's probe reused the first probe's id")
	}

	p.mu.Lock()
	p.last = p.last.Add(-time.Hour)
	p.mu.Unlock()
	fail = true
	p.turn()
	p.mu.Lock()
	p.last = p.last.Add(-time.Hour)
	p.mu.Unlock()
	fail = false
	p.turn()
	if len(sent) != 0 {
		t.Fatal("probes went on after a send failed")
	}

	// The game ended: after stop neither a turn nor the timer probes.
	p = s.probe(ctx, "m", engine.First, local, func(pr *matchv1.Probe) error { sent <- pr.GetId(); return nil })
	select {
	case <-sent:
	case <-time.After(30 * time.Second):
		t.Fatal("no probe at the start")
	}
	p.stop()
	p.mu.Lock()
	p.last = p.last.Add(-time.Hour)
	p.mu.Unlock()
	p.turn()
	p.fire(true)
	if len(sent) != 0 {
		t.Fatal("probes went on after stop")
	}
	var stopped *prober
	stopped.stop() // no prober: nothing

	s.ProbeEvery = -1
	if s.probe(ctx, "m", engine.First, local, func(*matchv1.Probe) error { t.Error("probed with ProbeEvery < 0"); return nil }) != nil {
		t.Fatal("a prober with ProbeEvery < 0")
	}
	var none *prober
	none.turn() // no prober: nothing
}

// TestGivesMove: only a ply_played whose view has the seat to move gives
// it the move; never to a spectator.
func TestGivesMove(t *testing.T) {
	ev := func(toMove gamev1.Seat) *matchv1.MatchEvent {
		return &matchv1.MatchEvent{Kind: &matchv1.MatchEvent_PlyPlayed{PlyPlayed: &matchv1.PlyPlayed{View: &gamev1.GameView{ToMove: toMove}}}}
	}
	for _, c := range []struct {
		ev   *matchv1.MatchEvent
		seat engine.Seat
		want bool
	}{
		{ev(gamev1.Seat_SEAT_SECOND), engine.Second, true},
		{ev(gamev1.Seat_SEAT_SECOND), engine.First, false},
		{ev(gamev1.Seat_SEAT_UNSPECIFIED), engine.NoSeat, false},
		{&matchv1.MatchEvent{Kind: &matchv1.MatchEvent_DrawOffered{DrawOffered: &matchv1.DrawOffered{By: gamev1.Seat_SEAT_FIRST}}}, engine.Second, false},
	} {
		if got := givesMove(c.ev, c.seat); got != c.want {
			t.Errorf("givesMove(%v, %v) = %v, want %v", c.ev, c.seat, got, c.want)
		}
	}
}
