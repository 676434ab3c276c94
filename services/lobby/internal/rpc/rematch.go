package rpc

import (
	"context"
	"slices"
	"time"

	"google.golang.org/grpc"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/services/lobby/internal/rooms"
)

func rematchToProto(r rooms.Rematch, viewer string) *lobbyv1.Rematch {
	st := map[rooms.RematchStatus]lobbyv1.RematchStatus{
		rooms.RematchNone: lobbyv1.RematchStatus_REMATCH_STATUS_NONE, rooms.RematchOffered: lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED,
		rooms.RematchStarting: lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED, rooms.RematchStarted: lobbyv1.RematchStatus_REMATCH_STATUS_STARTED,
		rooms.RematchDeclined: lobbyv1.RematchStatus_REMATCH_STATUS_DECLINED,
	}[r.Status]
	opp := r.Opponent(viewer)
	return &lobbyv1.Rematch{
		MatchId: r.MatchID, Status: st, OfferedBy: slices.Clone(r.OfferedBy), DeclinedBy: r.DeclinedBy,
		NewMatchId: r.NewMatchID, YourSeat: gamev1.Seat(r.NewSeatOf(viewer)),
		Opponent: &lobbyv1.RoomMember{PlayerId: opp.ID, DisplayName: opp.DisplayName, Rating: rounded(opp.Rating), Host: opp.ID == r.Host.ID},
	}
}

// OfferRematch offers or accepts the rematch of a finished room match.
func (s *Server) OfferRematch(ctx context.Context, req *lobbyv1.OfferRematchRequest) (*lobbyv1.OfferRematchResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	r, err := s.d.Rooms.OfferRematch(ctx, p.ID, req.GetMatchId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.OfferRematchResponse{Rematch: rematchToProto(r, p.ID)}, nil
}

// DeclineRematch declines or withdraws the rematch of a finished room match.
func (s *Server) DeclineRematch(ctx context.Context, req *lobbyv1.DeclineRematchRequest) (*lobbyv1.DeclineRematchResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	r, err := s.d.Rooms.DeclineRematch(ctx, p.ID, req.GetMatchId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.DeclineRematchResponse{Rematch: rematchToProto(r, p.ID)}, nil
}

// WatchRematch streams a rematch's state until it starts or is declined,
// re-reading it on its change events (published under the match id) and
// every RoomPoll in case an event was missed.
func (s *Server) WatchRematch(req *lobbyv1.WatchRematchRequest, stream grpc.ServerStreamingServer[lobbyv1.WatchRematchResponse]) error {
	ctx := stream.Context()
	p, err := s.caller(ctx)
	if err != nil {
		return toStatus(err)
	}
	changed, stop := s.d.Rooms.Changes(req.GetMatchId())
	defer stop()
	t := time.NewTicker(s.d.RoomPoll)
	defer t.Stop()
	var last *lobbyv1.Rematch
	for {
		r, err := s.d.Rooms.GetRematch(ctx, p.ID, req.GetMatchId())
		if err != nil {
			return toStatus(err)
		}
		pr := rematchToProto(r, p.ID)
		if last == nil || last.GetStatus() != pr.GetStatus() || !slices.Equal(last.GetOfferedBy(), pr.GetOfferedBy()) {
			if err := stream.Send(&lobbyv1.WatchRematchResponse{Rematch: pr}); err != nil {
				return err
			}
			last = pr
		}
		if r.Status == rooms.RematchStarted || r.Status == rooms.RematchDeclined {
			return nil
		}
		select {
		case <-ctx.Done():
			return toStatus(ctx.Err())
		case <-changed:
		case <-t.C:
		}
	}
}
