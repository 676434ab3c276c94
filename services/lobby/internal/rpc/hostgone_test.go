package rpc

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/rooms"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// roomStream is a WatchRoom stream that reports each message sent.
type roomStream struct {
	grpc.ServerStream
	ctx  context.Context
	sent chan *lobbyv1.WatchRoomResponse
}

func (r *roomStream) Context() context.Context { return r.ctx }
func (r *roomStream) Send(m *lobbyv1.WatchRoomResponse) error {
	r.sent <- m
	return nil
}

// watch opens the host's WatchRoom of a room, waits for its first message
// and returns the function that closes the stream (the page closed) and
// waits for WatchRoom to return.
func watch(t *testing.T, s *Server, ctx context.Context, roomID string) func() {
	t.Helper()
	sctx, cancel := context.WithCancel(ctx)
	st := &roomStream{ctx: sctx, sent: make(chan *lobbyv1.WatchRoomResponse, 8)}
	done := make(chan error, 1)
	go func() { done <- s.WatchRoom(&lobbyv1.WatchRoomRequest{RoomId: roomID}, st) }()
	select {
	case <-st.sent:
	case err := <-done:
		t.Fatalf("WatchRoom ended before its first message: %v", err)
	}
	return func() { cancel(); <-done }
}

func listed(t *testing.T, s *Server, ctx context.Context, roomID string) bool {
	t.Helper()
	l, err := s.ListRooms(ctx, &lobbyv1.ListRoomsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.GetRooms() {
		if r.GetRoomId() == roomID {
			return true
		}
	}
	return false
}

// A public room whose host's page is gone (its WatchRoom stream ended)
// leaves the open rooms after the grace, and joining it is refused saying
// why; a reload (a new stream within the grace) keeps it; a room its host
// never watched (an API client) is not touched. Real Redis; the rooms'
// clock is the test's.
func TestRoomClosesWhenItsHostIsGone(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m := &testenv.Matches{}
	now := &clock{t: time.Now()}
	mm := matchmaking.New(rdb, testenv.Variants, m, matchmaking.Config{Prefix: prefix})
	rs := rooms.New(rdb, testenv.Variants, m, rooms.Config{Prefix: prefix, Reserver: mm, HostGrace: 30 * time.Second, Now: now.now,
		Argon2: rooms.Argon2{Time: 1, MemoryKiB: 64, Threads: 1}})
	s := New(Deps{Rooms: rs, Matchmaker: mm, Matches: m, Lookup: testenv.Variants})
	host, other := as(t.Context(), "p_a"), as(t.Context(), "p_b")
	create := func() string {
		r, err := s.CreateRoom(host, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetRoom().GetRoomId()
	}
	room, unwatched := create(), create()

	// The host's page opens the room, then reloads: the new stream comes
	// within the grace, and the room stays.
	closePage := watch(t, s, host, room)
	closePage()
	now.add(20 * time.Second)
	closePage = watch(t, s, host, room)
	closePage()
	now.add(20 * time.Second)
	if !listed(t, s, other, room) {
		t.Fatal("a room whose host reloaded within the grace is not listed")
	}
	// The page is closed for good: past the grace, the room is gone.
	now.add(11 * time.Second)
	if listed(t, s, other, room) {
		t.Fatal("a room whose host left 31 s ago is still listed")
	}
	_, err := s.JoinRoom(other, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: room}})
	if st := status.Convert(err); st.Code() != codes.FailedPrecondition || !strings.Contains(st.Message(), "its host left") {
		t.Fatalf("joining a room whose host left: %v; want FailedPrecondition saying its host left", err)
	}
	if r, err := rs.Get(t.Context(), room); err != nil || r.Status != rooms.Closed {
		t.Fatalf("the room is %v (%v); want closed", r.Status, err)
	}
	// A room its host never watched is left as it was: listed, joinable.
	if !listed(t, s, other, unwatched) {
		t.Fatal("a room its host never watched left the list")
	}
	if _, err := s.JoinRoom(other, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: unwatched}}); err != nil {
		t.Fatalf("joining a room its host never watched: %v", err)
	}
}
