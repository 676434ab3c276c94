package rpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/rooms"
)

func roomToProto(r rooms.Room, viewer string) *lobbyv1.Room {
	vis := lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC
	if r.Private {
		vis = lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE
	}
	st := map[rooms.Status]lobbyv1.RoomStatus{
		rooms.Open: lobbyv1.RoomStatus_ROOM_STATUS_OPEN, rooms.Starting: lobbyv1.RoomStatus_ROOM_STATUS_OPEN,
		rooms.Started: lobbyv1.RoomStatus_ROOM_STATUS_STARTED, rooms.Closed: lobbyv1.RoomStatus_ROOM_STATUS_CLOSED,
	}[r.Status]
	out := &lobbyv1.Room{
		RoomId: r.ID, Game: matchclient.GameToProto(string(r.Game)), Variant: r.Variant,
		TimeControl: matchclient.ClockToProto(r.Clock), Rated: r.Rated, Visibility: vis, Status: st,
		MatchId: r.MatchID, HostSeat: gamev1.Seat(r.HostSeat), CreatedAt: ts(r.CreatedAt), ExpiresAt: ts(r.ExpiresAt),
	}
	member := viewer == r.Host.ID || (viewer != "" && viewer == r.Guest.ID)
	if member {
		out.InviteCode = r.InviteCode
	}
	out.Members = append(out.Members, &lobbyv1.RoomMember{PlayerId: r.Host.ID, DisplayName: r.Host.DisplayName, Rating: rounded(r.Host.Rating), Host: true})
	if r.Guest.ID != "" {
		out.Members = append(out.Members, &lobbyv1.RoomMember{PlayerId: r.Guest.ID, DisplayName: r.Guest.DisplayName, Rating: rounded(r.Guest.Rating)})
	}
	return out
}

// CreateRoom opens a room with the caller as host.
func (s *Server) CreateRoom(ctx context.Context, req *lobbyv1.CreateRoomRequest) (*lobbyv1.CreateRoomResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := gameFromProto(req.GetGame(), true)
	if err != nil {
		return nil, toStatus(err)
	}
	seat, err := seatFromProto(req.GetHostSeat())
	if err != nil {
		return nil, toStatus(err)
	}
	var private bool
	switch req.GetVisibility() {
	case lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC:
	case lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE:
		private = true
	default:
		return nil, toStatus(lobby.Invalid("visibility", "must be public or private"))
	}
	variant := s.variantID(g, req.GetVariant())
	tc, err := clockFromProto(req.GetTimeControl())
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.limit(ctx, s.d.Limits.CreateRoom, "rooms"); err != nil {
		return nil, err
	}
	if req.GetRated() {
		if p.Rating, err = s.ratingOf(ctx, p.ID, g, variant); err != nil {
			return nil, toStatus(err)
		}
	}
	r, err := s.d.Rooms.Create(ctx, p, rooms.Spec{Game: g, Variant: variant, Clock: tc,
		Rated: req.GetRated(), Private: private, Password: req.GetPassword(), HostSeat: seat, OneDevice: req.GetOneDevice()})
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.CreateRoomResponse{Room: roomToProto(r, p.ID)}, nil
}

// ListRooms lists open public rooms.
func (s *Server) ListRooms(ctx context.Context, req *lobbyv1.ListRoomsRequest) (*lobbyv1.ListRoomsResponse, error) {
	g, err := gameFromProto(req.GetGame(), false)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := errors.Join(s.checkFilter(g, req.GetVariant()), checkPageSize(req.GetPageSize())); err != nil {
		return nil, toStatus(err)
	}
	page, err := s.d.Rooms.List(ctx, g, req.GetVariant(), int(req.GetPageSize()), req.GetPageToken())
	if err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.ListRoomsResponse{NextPageToken: page.Next}
	for _, r := range page.Rooms {
		res.Rooms = append(res.Rooms, roomToProto(r, ""))
	}
	return res, nil
}

// JoinRoom takes the free seat of a room.
func (s *Server) JoinRoom(ctx context.Context, req *lobbyv1.JoinRoomRequest) (*lobbyv1.JoinRoomResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	t := rooms.Target{RoomID: req.GetRoomId(), InviteCode: req.GetInviteCode(), OneDevice: req.GetOneDevice()}
	id := t.RoomID
	if id == "" && t.InviteCode != "" {
		if err := s.limit(ctx, s.d.Limits.InviteLookup, "invite"); err != nil {
			return nil, err
		}
		if id, err = s.d.Rooms.ByInvite(ctx, t.InviteCode); err != nil {
			return nil, toStatus(err)
		}
	}
	if id != "" {
		if r, err := s.d.Rooms.Get(ctx, id); err == nil && r.Rated {
			if p.Rating, err = s.ratingOf(ctx, p.ID, r.Game, r.Variant); err != nil {
				return nil, toStatus(err)
			}
		}
	}
	r, err := s.d.Rooms.Join(ctx, p, t, req.GetPassword(), s.addr(ctx))
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.JoinRoomResponse{Room: roomToProto(r, p.ID), YourSeat: gamev1.Seat(r.SeatOf(p.ID))}, nil
}

// GetInvite returns the room an invite code opens, checked as JoinRoom by
// invite code checks it. It is public: a token, when sent, names the
// guesser whose wrong passwords are counted.
func (s *Server) GetInvite(ctx context.Context, req *lobbyv1.GetInviteRequest) (*lobbyv1.GetInviteResponse, error) {
	if req.GetInviteCode() == "" {
		return nil, toStatus(lobby.Invalid("invite_code", "required"))
	}
	if err := s.limit(ctx, s.d.Limits.InviteLookup, "invite"); err != nil {
		return nil, err
	}
	var guesser string
	if p, err := s.caller(ctx); err == nil {
		guesser = p.ID
	}
	r, err := s.d.Rooms.Invite(ctx, req.GetInviteCode(), guesser, req.GetPassword(), s.addr(ctx))
	if err != nil {
		return nil, toStatus(err)
	}
	out := roomToProto(r, "")
	out.MatchId = ""
	return &lobbyv1.GetInviteResponse{Room: out}, nil
}

// LeaveRoom leaves a room that has not started.
func (s *Server) LeaveRoom(ctx context.Context, req *lobbyv1.LeaveRoomRequest) (*lobbyv1.LeaveRoomResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.d.Rooms.Leave(ctx, p.ID, req.GetRoomId()); err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.LeaveRoomResponse{}, nil
}

// WatchRoom streams a room's state until it starts or closes. It sends the
// room at once, then re-reads it on each of its change events (the rooms
// store's per-instance subscription, Rooms.Run) and every RoomPoll in case
// an event was missed. The host's watch of an open room stamps it every
// Rooms.HostBeat (rooms.Store.HostHere): a room whose host has not watched
// it for the grace closes (see package rooms).
func (s *Server) WatchRoom(req *lobbyv1.WatchRoomRequest, stream grpc.ServerStreamingServer[lobbyv1.WatchRoomResponse]) error {
	ctx := stream.Context()
	p, err := s.caller(ctx)
	if err != nil {
		return toStatus(err)
	}
	release, err := s.d.Streams.Acquire(ctx, p.ID)
	if err != nil {
		return toStatus(err)
	}
	defer release()
	changed, stop := s.d.Rooms.Changes(req.GetRoomId())
	defer stop()
	var last *lobbyv1.Room
	t := time.NewTicker(s.d.RoomPoll)
	defer t.Stop()
	beat := time.NewTicker(s.d.Rooms.HostBeat())
	defer beat.Stop()
	for {
		r, err := s.d.Rooms.Get(ctx, req.GetRoomId())
		if err != nil {
			return toStatus(err)
		}
		if p.ID != r.Host.ID && p.ID != r.Guest.ID {
			return toStatus(fmt.Errorf("you are not in room %s: %w", r.ID, lobby.ErrForbidden))
		}
		if p.ID == r.Host.ID && r.Status == rooms.Open {
			if err := s.d.Rooms.HostHere(ctx, p.ID, r.ID); err != nil {
				return toStatus(err)
			}
		}
		pr := roomToProto(r, p.ID)
		if last == nil || last.GetStatus() != pr.GetStatus() || len(last.GetMembers()) != len(pr.GetMembers()) || last.GetMatchId() != pr.GetMatchId() {
			if err := stream.Send(&lobbyv1.WatchRoomResponse{Room: pr, YourSeat: gamev1.Seat(r.SeatOf(p.ID))}); err != nil {
				return err
			}
			last = pr
		}
		if r.Status == rooms.Started || r.Status == rooms.Closed {
			return nil
		}
		select {
		case <-ctx.Done():
			return toStatus(ctx.Err())
		case <-changed:
		case <-t.C:
		case <-beat.C:
		}
	}
}
