package matchserver_test

import (
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// TestFinishedMatchStreamsSendNoProbes: a seat that opens Play or Follow
// on a finished match gets its snapshot and the stream's end, and no
// probe: there is no turn left to measure, and a probe written then would
// give the finished match's lag key a live match's expiry.
func TestFinishedMatchStreamsSendNoProbes(t *testing.T) {
	t.Parallel()
	c := newProbingCluster(t, 1, match.Config{}, nil, 20*time.Millisecond)
	id := c.create(quoridor(nil))
	if _, err := c.client(0).Resign(c.as(t.Context(), "alice"), &matchv1.ResignRequest{MatchId: id}); err != nil {
		t.Fatal(err)
	}
	lagKey := c.prefix + "m:{" + id + "}:lag"
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			f, err := c.client(0).Follow(c.as(t.Context(), "bob"), &matchv1.FollowRequest{MatchId: id})
			if err != nil {
				t.Error(err)
				return
			}
			for {
				r, err := f.Recv()
				if err != nil {
					return
				}
				if r.GetProbe() != nil {
					t.Error("a Follow stream of a finished match got a probe")
				}
			}
		})
		wg.Go(func() {
			p := c.play(0, "alice", id, 0)
			for m := range p.msgs {
				if m.(*matchv1.PlayResponse).GetProbe() != nil {
					t.Error("a Play stream of a finished match got a probe")
				}
			}
		})
	}
	wg.Wait()
	if n := c.rdb.Exists(t.Context(), lagKey).Val(); n != 0 {
		t.Errorf("the finished match's lag key exists (ttl %v)", c.rdb.PTTL(t.Context(), lagKey).Val())
	}
}

// TestConcurrentPliesOfOneSeatStreamsStayExact: while each mover sends its
// ply twice on its Play stream and once more through the unary SubmitPly
// on the other instance, a stale ply, and the other seat the same ply out
// of turn, and alice rejoins mid-game on the other instance from an old
// seq, every stream (both seats, a spectator on each instance) sees each
// ply once, in order, with no event lost, and the position every event
// shows is the one its plies make; the unary answers are that ply, fresh
// or repeated, or a refusal.
func TestConcurrentPliesOfOneSeatStreamsStayExact(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, match.Config{}, nil)
	id := c.create(quoridor(nil))
	watchers := []*stream{c.watch(0, id), c.watch(1, id)}
	alice, bob := c.play(0, "alice", id, 0), c.play(1, "bob", id, 0)
	seats := map[string]*stream{"alice": alice, "bob": bob}
	moves := [2][2]string{{"e2", "e1"}, {"e8", "e9"}}
	const plies = 16
	want := make([]string, plies+1) // want[n]: the position's encoding after ply n
	pos, err := games.New(engine.Quoridor, "standard", "")
	if err != nil {
		t.Fatal(err)
	}
	want[0] = pos.View(engine.NoSeat).Encode()
	var rejoinFrom int64
	for n := int32(1); n <= plies; n++ {
		i := (n - 1) % 2
		mover, other := "alice", "bob"
		if i == 1 {
			mover, other = other, mover
		}
		ply := moves[i][((n-1)/2)%2]
		if p, err := pos.ParsePly(ply); err != nil {
			t.Fatal(err)
		} else if pos, err = pos.Play(p); err != nil {
			t.Fatal(err)
		}
		want[n] = pos.View(engine.NoSeat).Encode()

		var wg sync.WaitGroup
		s := seats[mover]
		s.submit(n, ply)
		s.submit(n, ply)
		for inst := range 2 {
			wg.Go(func() {
				r, err := c.client(inst).SubmitPly(c.as(t.Context(), mover), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: ply})
				if err != nil {
					if code(err) != codes.FailedPrecondition && code(err) != codes.Aborted {
						t.Errorf("ply %d through instance %d: %v", n, inst, err)
					}
					return
				}
				if got := r.GetEvent().GetPlyPlayed().GetPly(); got.GetNumber() != n || got.GetNotation() != ply {
					t.Errorf("ply %d through instance %d answered with ply %d %s", n, inst, got.GetNumber(), got.GetNotation())
				}
			})
			wg.Go(func() { // stale: the ply before, another notation
				if _, err := c.client(inst).SubmitPly(c.as(t.Context(), mover), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n - 1, Notation: "a1"}); err == nil {
					t.Errorf("stale ply %d accepted", n-1)
				}
			})
			wg.Go(func() { // the other seat, out of turn
				if _, err := c.client(inst).SubmitPly(c.as(t.Context(), other), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: ply}); err == nil {
					t.Errorf("%s's ply %d accepted from %s", mover, n, other)
				}
			})
		}
		wg.Wait()
		for _, w := range watchers {
			w.until("ply", hasPly(n))
		}
		if n == 4 {
			rejoinFrom = watchers[0].all[len(watchers[0].all)-1].(*matchv1.WatchResponse).GetEvent().GetSeq()
		}
		if n == 10 { // alice's connection drops; she rejoins elsewhere from an old seq
			alice.cancel()
			seats["alice"] = c.play(1, "alice", id, rejoinFrom)
		}
	}
	if _, err := c.client(0).Resign(c.as(t.Context(), "bob"), &matchv1.ResignRequest{MatchId: id}); err != nil {
		t.Fatal(err)
	}
	check := func(name string, s *stream, from int64) {
		t.Helper()
		s.ended()
		last := from
		got := map[int64]*matchv1.MatchEvent{} // the events the stream sent, by seq
		for _, m := range s.all {
			if snap := snapshot(m); snap != nil {
				last = snap.GetLastSeq()
				if got := snap.GetView().GetEncoding(); got != want[len(snap.GetPlies())] {
					t.Errorf("%s: snapshot after %d plies shows %s, want %s", name, len(snap.GetPlies()), got, want[len(snap.GetPlies())])
				}
				continue
			}
			ev := event(m)
			if ev == nil {
				continue
			}
			if had, ok := got[ev.GetSeq()]; ok { // a resent ply's answer: an event the stream sent, again
				if !proto.Equal(ev, had) {
					t.Errorf("%s: seq %d twice, different: %v and %v", name, ev.GetSeq(), had, ev)
				}
				continue
			}
			if ev.GetSeq() <= last && last != 0 {
				// A resent ply's answer whose event the stream's
				// snapshot covered (the ply was accepted, through the
				// other instance, before the stream joined): the same
				// ply_played again, below the seq the client has.
				pp := ev.GetPlyPlayed()
				if n := pp.GetPly().GetNumber(); pp == nil || int(n) >= len(want) || pp.GetView().GetEncoding() != want[n] {
					t.Errorf("%s: seq %d after %d is not a repeated ply: %v", name, ev.GetSeq(), last, ev)
				}
				continue
			}
			got[ev.GetSeq()] = ev
			if ev.GetSeq() != last+1 && last != 0 {
				t.Errorf("%s: seq %d after %d", name, ev.GetSeq(), last)
			}
			last = ev.GetSeq()
			v := ev.GetPlyPlayed().GetView()
			if v == nil {
				v = ev.GetGameEnded().GetView()
			}
			if v != nil {
				n := v.GetPlyCount()
				if v.GetEncoding() != want[n] {
					t.Errorf("%s: event %d after %d plies shows %s, want %s", name, ev.GetSeq(), n, v.GetEncoding(), want[n])
				}
				if pp := ev.GetPlyPlayed(); pp != nil && (pp.GetPly().GetNumber() != n || v.GetLastPly().GetNumber() != n) {
					t.Errorf("%s: event %d: ply %d, view after %d plies with last ply %d", name, ev.GetSeq(), pp.GetPly().GetNumber(), n, v.GetLastPly().GetNumber())
				}
			}
		}
	}
	check("spectator 0", watchers[0], 0)
	check("spectator 1", watchers[1], 0)
	check("bob", bob, 0)
	check("alice after her rejoin", seats["alice"], rejoinFrom)
}

// TestResentPlyAfterRejoinKeepsSeqOrder: a client whose connection dropped
// rejoins from the last seq it saw and at once resends the ply it is not
// sure was accepted (the latest event). Its stream still carries events in
// seq order: the missed events first, and the resent ply's event never
// before them (a client that drops events at or below the last seq it has
// would lose them).
func TestResentPlyAfterRejoinKeepsSeqOrder(t *testing.T) {
	t.Parallel()
	c := newClusterWith(t, 2, match.Config{}, nil, -1, manyOpenings)
	id := c.create(quoridor(nil))
	alice, bob := c.play(0, "alice", id, 0), c.play(1, "bob", id, 0)
	for _, s := range []*stream{alice, bob} {
		s.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	}
	moves := [2][2]string{{"e2", "e1"}, {"e8", "e9"}}
	const plies = 11 // alice's last
	var seqs [plies + 1]int64
	for n := int32(1); n <= plies; n++ {
		s := alice
		if n%2 == 0 {
			s = bob
		}
		s.submit(n, moves[(n-1)%2][((n-1)/2)%2])
		seqs[n] = event(bob.until("ply", func(m any) bool { return plyNumber(m) == n })).GetSeq()
	}
	for try := range 30 {
		from := seqs[1+try%2]
		a := c.play(try%2, "alice", id, from)
		a.submit(plies, moves[0][((plies-1)/2)%2]) // already accepted
		last := from
		for last < seqs[plies] {
			ev := event(a.next())
			if ev == nil {
				continue
			}
			if ev.GetSeq() != last+1 {
				t.Fatalf("try %d, rejoined after seq %d: event %d after %d", try, from, ev.GetSeq(), last)
			}
			last = ev.GetSeq()
		}
		a.cancel()
	}
}
