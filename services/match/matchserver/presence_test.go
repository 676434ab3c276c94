package matchserver_test

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/services/match/internal/match"
)

// TestReconnectStormDoesNotFloodTheOpponent: 200 Play joins of one seat,
// across two instances (each superseding the previous stream, or opened
// after the previous one closed), reach the opponent as at most a couple
// of presence events (none unless a gap between a close and the next join
// outlasts the presence grace); a real disconnection is still announced,
// and the return after it.
func TestReconnectStormDoesNotFloodTheOpponent(t *testing.T) {
	t.Parallel()
	c := newClusterWith(t, 2, match.Config{}, nil, -1, manyOpenings) // the default presence grace
	id := c.create(quoridor(nil))
	alice := c.play(0, "alice", id, 0)
	alice.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	bob := c.play(1, "bob", id, 0)
	bob.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	alice.submit(1, "e2")
	alice.until("ply 1", hasPly(1))
	before := len(alice.all)

	for i := range 200 {
		if i%2 == 1 {
			bob.cancel() // closed before the next join; otherwise the next join supersedes it
		}
		next := c.play(i%2, "bob", id, 0)
		next.until("snapshot", func(m any) bool { return snapshot(m) != nil })
		if i%2 == 0 {
			<-bob.msgs // drain, then its end
			for range bob.msgs {
			}
			if err := <-bob.done; status.Code(err) != codes.Aborted {
				t.Fatalf("join %d: the superseded stream ended %v, want Aborted", i, err)
			}
		}
		bob = next
	}
	bob.submit(2, "e8")
	alice.until("ply 2", hasPly(2))
	presence := 0
	for _, m := range alice.all[before:] {
		if ev := event(m); ev.GetPlayerDisconnected() != nil || ev.GetPlayerReconnected() != nil {
			presence++
		}
	}
	t.Logf("200 joins: %d presence events at the opponent", presence)
	if presence > 2 {
		t.Fatalf("200 joins of the second seat sent %d presence events to the opponent, want at most 2", presence)
	}

	// A real disconnection is announced (after the grace), and the return.
	bob.cancel()
	alice.until("bob dropped", func(m any) bool { return event(m).GetPlayerDisconnected() != nil })
	back := c.play(0, "bob", id, 0)
	back.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	alice.until("bob back", func(m any) bool { return event(m).GetPlayerReconnected() != nil })
}
