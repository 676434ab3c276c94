package matchclient

import (
	"context"
	"testing"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/lobby/internal/lobby"

	"google.golang.org/grpc"
)

type fakeMatch struct {
	matchv1.MatchServiceClient
	got *matchv1.CreateMatchRequest
}

func (f *fakeMatch) CreateMatch(_ context.Context, req *matchv1.CreateMatchRequest, _ ...grpc.CallOption) (*matchv1.CreateMatchResponse, error) {
	f.got = req
	return &matchv1.CreateMatchResponse{MatchId: "m1"}, nil
}

func TestCreateMatchMapsSpec(t *testing.T) {
	t.Parallel()
	f := &fakeMatch{}
	id, err := New(f).CreateMatch(t.Context(), lobby.MatchSpec{
		RequestID: "room-1", Game: "quoridor", Variant: "standard", Rated: true,
		Clock:  lobby.TimeControl{BaseMS: 180000, IncrementMS: 2000},
		First:  lobby.Participant{PlayerID: "a", DisplayName: "A", Rating: 1512.6},
		Second: lobby.Participant{Bot: lobby.BotHard},
	})
	if err != nil || id != "m1" {
		t.Fatal(id, err)
	}
	g := f.got
	if g.GetRequestId() != "room-1" || g.GetGame() != gamev1.Game_GAME_QUORIDOR || g.GetTimeControl().GetBaseMs() != 180000 ||
		g.GetFirst().GetPlayer().GetRating() != 1513 || g.GetSecond().GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_HARD {
		t.Errorf("request %v", g)
	}
}
