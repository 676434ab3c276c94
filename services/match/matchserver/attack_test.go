package matchserver_test

import (
	"sync"
	"testing"
	"time"

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
