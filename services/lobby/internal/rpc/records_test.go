package rpc

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// A live match's started_at is when it was created (lobby.proto), as a
// finished game's is, not when its first ply came: a game one waited in
// before moving, resumed later, said it had started at that ply.
func TestLiveSummaryStartedAtIsCreation(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	firstPly := created.Add(40 * time.Minute)
	got := liveSummary(&matchv1.MatchSummary{MatchId: "m", CreatedAt: timestamppb.New(created), StartedAt: timestamppb.New(firstPly)}, "")
	if !got.GetStartedAt().AsTime().Equal(created) {
		t.Errorf("started_at %v, want the creation %v", got.GetStartedAt().AsTime(), created)
	}
	// A summary without its creation time (an older match service) keeps the first ply's.
	got = liveSummary(&matchv1.MatchSummary{MatchId: "m", StartedAt: timestamppb.New(firstPly)}, "")
	if !got.GetStartedAt().AsTime().Equal(firstPly) {
		t.Errorf("without created_at: started_at %v, want %v", got.GetStartedAt().AsTime(), firstPly)
	}
}
