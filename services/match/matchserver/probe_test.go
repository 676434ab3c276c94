package matchserver_test

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
)

// TestProbesMeasureBothSeatPaths: a Play stream's probe answered on the
// stream, and a Follow stream's answered by AnswerProbe, each give the
// seat a round-trip estimate; the probes come after the snapshot.
func TestProbesMeasureBothSeatPaths(t *testing.T) {
	t.Parallel()
	c := newProbingCluster(t, 2, match.Config{}, nil, 50*time.Millisecond)
	id := c.create(quoridor(nil))
	lagKey := c.prefix + "m:{" + id + "}:lag"
	estimated := func(field string) bool { return c.rdb.HExists(t.Context(), lagKey, field).Val() }

	alice := c.play(0, "alice", id, 0)
	if snapshot(alice.next()) == nil {
		t.Fatal("the first message of a Play stream is not the snapshot")
	}
	p := alice.until("probe", func(m any) bool { return m.(*matchv1.PlayResponse).GetProbe() != nil }).(*matchv1.PlayResponse).GetProbe()
	alice.act(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_ProbeAnswer{ProbeAnswer: &matchv1.ProbeAnswer{Id: p.GetId()}}})

	ctx := c.as(t.Context(), "bob")
	f, err := c.client(1).Follow(ctx, &matchv1.FollowRequest{MatchId: id})
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.Recv()
	if err != nil || first.GetSnapshot() == nil {
		t.Fatalf("first Follow message %v, %v; want the snapshot", first, err)
	}
	for {
		r, err := f.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if pr := r.GetProbe(); pr != nil {
			if _, err := c.client(0).AnswerProbe(ctx, &matchv1.AnswerProbeRequest{MatchId: id, Id: pr.GetId()}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	testenv.Eventually(t, 10*time.Second, "both seats' round-trip estimates", func() bool {
		return estimated("r1") && estimated("r2")
	})
	if _, err := c.client(0).AnswerProbe(c.as(t.Context(), "carol"), &matchv1.AnswerProbeRequest{MatchId: id, Id: 1}); code(err) != codes.PermissionDenied {
		t.Errorf("a non-seat answers a probe: %v, want PermissionDenied", err)
	}
}
