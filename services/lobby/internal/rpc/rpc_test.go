package rpc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/rooms"
	"tabuleiro.dev/services/lobby/internal/sessions"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// newServer serves from the test Redis and a fake match service; no
// database (the RPCs under test here never reach it).
func newServer(t *testing.T) (*Server, *testenv.Matches) {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	m := &testenv.Matches{}
	mm := matchmaking.New(rdb, testenv.Variants, m, matchmaking.Config{Prefix: prefix})
	rs := rooms.New(rdb, testenv.Variants, m, rooms.Config{Prefix: prefix, Reserver: mm,
		Argon2: rooms.Argon2{Time: 1, MemoryKiB: 64, Threads: 1}})
	return New(Deps{Rooms: rs, Matchmaker: mm, Matches: m, Lookup: testenv.Variants, Sessions: sessions.New(rdb, prefix)}), m
}

func as(ctx context.Context, id string) context.Context {
	return auth.NewContext(ctx, auth.Principal{Kind: auth.KindPlayer, Subject: id, DisplayName: "P " + id[len(id)-1:]})
}

// findStream is a FindMatch stream that records what is sent.
type findStream struct {
	grpc.ServerStream
	ctx  context.Context
	sent []*lobbyv1.FindMatchResponse
}

func (f *findStream) Context() context.Context { return f.ctx }
func (f *findStream) Send(m *lobbyv1.FindMatchResponse) error {
	f.sent = append(f.sent, m)
	return errors.New("client gone") // end the stream after the first message
}

func wantCode(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Errorf("%s: %v, want %v", what, err, code)
	}
}

// A present time control must be in range, {0, 0} included; absent means
// no clock (rooms, bots) or the default (FindMatch).
func TestTimeControlPresentMustBeInRange(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	ctx := as(t.Context(), "p_a")
	zero := &gamev1.TimeControl{}
	_, err := s.CreateRoom(ctx, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, TimeControl: zero,
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	wantCode(t, "CreateRoom {0,0}", err, codes.InvalidArgument)
	_, err = s.PlayBot(ctx, &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, TimeControl: zero, Level: gamev1.BotLevel_BOT_LEVEL_EASY})
	wantCode(t, "PlayBot {0,0}", err, codes.InvalidArgument)
	err = s.FindMatch(&lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_BANQI, TimeControl: zero}, &findStream{ctx: ctx})
	wantCode(t, "FindMatch {0,0}", err, codes.InvalidArgument)

	r, err := s.CreateRoom(ctx, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	if err != nil || r.GetRoom().GetTimeControl() != nil {
		t.Errorf("CreateRoom without a clock: %v, %v; want no clock", r, err)
	}
	st := &findStream{ctx: ctx}
	_ = s.FindMatch(&lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_BANQI}, st)
	if len(st.sent) != 1 || st.sent[0].GetQueued() == nil {
		t.Errorf("FindMatch without a clock sent %v; want queued (variant default)", st.sent)
	}
}

// Lists agree: a negative or too large page size, an unknown order and an
// unknown variant filter are INVALID_ARGUMENT everywhere.
func TestListValidation(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	ctx := as(t.Context(), "p_a")
	q := gamev1.Game_GAME_QUORIDOR
	for _, size := range []int32{-1, 101} {
		_, err := s.ListRooms(ctx, &lobbyv1.ListRoomsRequest{PageSize: size})
		wantCode(t, "ListRooms page_size", err, codes.InvalidArgument)
		_, err = s.ListLiveMatches(ctx, &lobbyv1.ListLiveMatchesRequest{PageSize: size})
		wantCode(t, "ListLiveMatches page_size", err, codes.InvalidArgument)
		_, err = s.ListGames(ctx, &lobbyv1.ListGamesRequest{PageSize: size})
		wantCode(t, "ListGames page_size", err, codes.InvalidArgument)
	}
	_, err := s.ListLiveMatches(ctx, &lobbyv1.ListLiveMatchesRequest{Order: 9})
	wantCode(t, "ListLiveMatches order 9", err, codes.InvalidArgument)
	_, err = s.ListRooms(ctx, &lobbyv1.ListRoomsRequest{Game: q, Variant: "nope"})
	wantCode(t, "ListRooms unknown variant", err, codes.InvalidArgument)
	_, err = s.ListLiveMatches(ctx, &lobbyv1.ListLiveMatchesRequest{Game: q, Variant: "nope"})
	wantCode(t, "ListLiveMatches unknown variant", err, codes.InvalidArgument)
	_, err = s.ListRooms(ctx, &lobbyv1.ListRoomsRequest{Game: q, Variant: "standard"})
	wantCode(t, "ListRooms known variant", err, codes.OK)
	_, err = s.ListLiveMatches(ctx, &lobbyv1.ListLiveMatchesRequest{Order: lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_HIGHEST_RATED})
	wantCode(t, "ListLiveMatches highest rated", err, codes.OK)
}

// Long input is not echoed in full.
func TestLongInputClipped(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	ctx := as(t.Context(), "p_a")
	long := strings.Repeat("v", 100_000)
	q := gamev1.Game_GAME_QUORIDOR
	_, e1 := s.CreateRoom(ctx, &lobbyv1.CreateRoomRequest{Game: q, Variant: long, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	_, e2 := s.PlayBot(ctx, &lobbyv1.PlayBotRequest{Game: q, Variant: long, Level: gamev1.BotLevel_BOT_LEVEL_EASY})
	e3 := s.FindMatch(&lobbyv1.FindMatchRequest{Game: q, Variant: long}, &findStream{ctx: ctx})
	_, e4 := s.ListRooms(ctx, &lobbyv1.ListRoomsRequest{Game: q, Variant: long})
	_, e5 := s.JoinRoom(ctx, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: long}})
	_, e6 := s.LeaveRoom(ctx, &lobbyv1.LeaveRoomRequest{RoomId: long})
	for i, err := range []error{e1, e2, e3, e4, e5, e6} {
		st, _ := status.FromError(err)
		if err == nil || len(st.Message()) > 200 || !strings.Contains(st.Message(), "…") {
			t.Errorf("call %d: %d-byte message %.300q, want a clipped echo", i+1, len(st.Message()), st.Message())
		}
	}
}

// Over-long or NUL-bearing game and player ids are refused as invalid,
// saying why and without repeating them, before any store is asked.
func TestRecordIDsChecked(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	ctx := as(t.Context(), "p_a")
	for _, id := range []string{strings.Repeat("x", 100_000), "g\x00\x00"} {
		_, e1 := s.GetGame(ctx, &lobbyv1.GetGameRequest{GameId: id})
		_, e2 := s.GetStats(ctx, &lobbyv1.GetStatsRequest{PlayerId: id})
		_, e3 := s.ListGames(ctx, &lobbyv1.ListGamesRequest{PlayerId: id})
		for i, err := range []error{e1, e2, e3} {
			st, _ := status.FromError(err)
			if st.Code() != codes.InvalidArgument || strings.Contains(st.Message(), "xxxx") || strings.Contains(st.Message(), "\x00") {
				t.Errorf("call %d with a %d-byte id: %v; want INVALID_ARGUMENT without the id", i+1, len(id), err)
			}
			if len(id) > 128 && !strings.Contains(st.Message(), "too long (100000 bytes; at most 128)") {
				t.Errorf("call %d: %q, want it to say how long", i+1, st.Message())
			}
		}
	}
}

// JoinRoom of a one-device room without one_device is FAILED_PRECONDITION
// with a reason a player can act on; with it (the host's second identity)
// the room starts.
func TestJoinOneDeviceRoom(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	ctx := t.Context()
	r, err := s.CreateRoom(as(ctx, "p_a"), &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3",
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, Password: "secret", OneDevice: true})
	if err != nil {
		t.Fatal(err)
	}
	code := &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: r.GetRoom().GetInviteCode()}
	_, err = s.JoinRoom(as(ctx, "p_b"), &lobbyv1.JoinRoomRequest{Target: code, Password: "secret"})
	wantCode(t, "a friend joining a one-device room", err, codes.FailedPrecondition)
	if !strings.Contains(status.Convert(err).Message(), "ask its host for a normal room") {
		t.Errorf("reason %q does not say what to do", status.Convert(err).Message())
	}
	j, err := s.JoinRoom(as(ctx, "p_c"), &lobbyv1.JoinRoomRequest{Target: code, Password: "secret", OneDevice: true})
	if err != nil || j.GetRoom().GetMatchId() == "" {
		t.Fatalf("the one-device join: %v, %v; want the match", j, err)
	}
}
