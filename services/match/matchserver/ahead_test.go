package matchserver_test

import (
	"testing"

	"tabuleiro.dev/services/match/internal/match"
)

// Issue 14: a client that saw more events than the server holds (a store
// that lost its last writes in a crash) must not be told it is up to
// date. Joining with a last_seq ahead of the server's, even by exactly as
// many events as the join itself then commits (the reconnection), gets a
// snapshot first, and then every later event in order.
func TestRejoinAheadOfTheServerGetsASnapshot(t *testing.T) {
	t.Parallel()
	for _, ahead := range []int64{1, 2, 50} {
		c := newCluster(t, 1, match.Config{}, nil)
		id := c.create(quoridor(nil))
		alice, bob := c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)
		alice.submit(1, "e2")
		alice.until("ply 1", func(m any) bool { return plyNumber(m) == 1 })
		bob.until("ply 1", hasPly(1))
		alice.cancel()
		// The server's last event: alice's disconnection.
		last := event(bob.until("alice dropped", func(m any) bool { return event(m).GetPlayerDisconnected() != nil })).GetSeq()

		alice2 := c.play(0, "alice", id, last+ahead)
		first := alice2.next()
		snap := snapshot(first)
		if snap == nil {
			t.Fatalf("ahead by %d: first message after the rejoin = %v, want a snapshot", ahead, first)
		}
		if n := len(snap.GetPlies()); n != 1 {
			t.Fatalf("ahead by %d: snapshot with %d plies, want 1", ahead, n)
		}
		bob.submit(2, "e8")
		ev := event(alice2.until("ply 2", func(m any) bool { return plyNumber(m) == 2 }))
		if ev.GetSeq() <= snap.GetLastSeq() {
			t.Fatalf("ahead by %d: ply 2 has seq %d, not after the snapshot's %d", ahead, ev.GetSeq(), snap.GetLastSeq())
		}
	}
}
