package matchserver_test

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// TestPlayStreamGoroutines: an open Play stream holds two goroutines of
// the match server (its handler, which follows the match, and its
// receiver), not four: the feed's and the lag probes' goroutines (a
// probe is sent by a timer's function) were a third of a connected
// player's memory, in stacks. Not parallel: it counts every goroutine of
// the process running the server's handlers.
func TestPlayStreamGoroutines(t *testing.T) {
	c := newProbingCluster(t, 1, match.Config{}, nil, time.Hour) // one probe at once, the next in an hour
	const matches = 5
	var streams []*stream
	for range matches {
		id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
		for _, who := range []string{"alice", "bob"} {
			s := c.play(0, who, id, 0)
			s.until("snapshot", func(m any) bool { return snapshot(m) != nil })
			streams = append(streams, s)
		}
	}
	for _, s := range streams { // each has had its first probe
		s.until("probe", func(m any) bool { return m.(*matchv1.PlayResponse).GetProbe() != nil })
	}
	var n int
	deadline := time.Now().Add(5 * time.Second)
	for {
		var buf bytes.Buffer
		if err := pprof.Lookup("goroutine").WriteTo(&buf, 2); err != nil {
			t.Fatal(err)
		}
		n = 0
		for _, g := range strings.Split(buf.String(), "\n\n") {
			if strings.Contains(g, "services/match/internal/rpc.(*Server).") {
				n++
			}
		}
		if n <= 2*len(streams) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // a probe's timer function may be ending
	}
	if n != 2*len(streams) {
		t.Fatalf("%d goroutines of the server's handlers for %d Play streams, want 2 each", n, len(streams))
	}
}
