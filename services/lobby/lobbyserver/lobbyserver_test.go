package lobbyserver

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/reason"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/rooms"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// fakeMatchService is a match.v1 server that requires a service credential
// for CreateMatch, as the real one does (through the same interceptor).
type fakeMatchService struct {
	matchv1.UnimplementedMatchServiceServer
	reqs chan *matchv1.CreateMatchRequest

	mu   sync.Mutex
	live []*matchv1.MatchSummary
}

func (f *fakeMatchService) CreateMatch(ctx context.Context, req *matchv1.CreateMatchRequest) (*matchv1.CreateMatchResponse, error) {
	f.reqs <- req
	sum := &matchv1.MatchSummary{MatchId: "m-" + req.GetRequestId(), Game: req.GetGame(), Variant: req.GetVariant(), CreatedAt: timestamppb.Now()}
	for i, s := range []*matchv1.SeatSpec{req.GetFirst(), req.GetSecond()} {
		if s != nil {
			sum.Seats = append(sum.Seats, &gamev1.Participant{Seat: gamev1.Seat(i + 1), PlayerId: s.GetPlayer().GetPlayerId(), BotLevel: s.GetBotLevel()})
		}
	}
	f.mu.Lock()
	f.live = append(f.live, sum)
	f.mu.Unlock()
	return &matchv1.CreateMatchResponse{MatchId: sum.GetMatchId()}, nil
}

// ListMatches lists every created match (none ends here), service only
// like the real one.
func (f *fakeMatchService) ListMatches(ctx context.Context, req *matchv1.ListMatchesRequest) (*matchv1.ListMatchesResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &matchv1.ListMatchesResponse{}
	for _, m := range f.live {
		if ids := req.GetMatchIds(); len(ids) > 0 && !slices.Contains(ids, m.GetMatchId()) {
			continue
		}
		for _, p := range m.GetSeats() {
			if req.GetPlayerId() == "" || p.GetPlayerId() == req.GetPlayerId() {
				res.Matches = append(res.Matches, m)
				break
			}
		}
	}
	return res, nil
}

// end ends a live match: ListMatches stops listing it.
func (f *fakeMatchService) end(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.live = slices.DeleteFunc(f.live, func(m *matchv1.MatchSummary) bool { return m.GetMatchId() == id })
}

func serve(t testing.TB, iss *auth.Issuer, ver *auth.Verifier, policy auth.Policy, register func(*grpc.Server), creds credentials) *grpc.ClientConn {
	t.Helper()
	lis := grpcservetest.Listen(t)
	srv, _ := grpcserve.NewServer(grpcserve.Options{Auth: auth.NewInterceptor(ver, policy)}, register)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	opts := []grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}
	if creds != nil {
		opts = append(opts, grpc.WithPerRPCCredentials(creds))
	}
	conn, err := grpc.NewClient("passthrough:///bufnet", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

type credentials = interface {
	GetRequestMetadata(context.Context, ...string) (map[string]string, error)
	RequireTransportSecurity() bool
}

// runRoomsLobby runs a lobby over matches whose room watchers are woken
// by room change events only (the fallback re-read is an hour away), once
// its rooms are ready; it returns a client and signIn, which signs a guest
// in and returns the guest's context and player id. Every call comes from
// the test's one address: the per-address rates are off (rpc's
// TestPerAddressLimits checks them).
func runRoomsLobby(t *testing.T, iss *auth.Issuer, ver *auth.Verifier, matches MatchCreator) (lobbyv1.LobbyServiceClient, func(name string) (context.Context, string)) {
	t.Helper()
	ctx := t.Context()
	rdb, prefix := testenv.Redis(t)
	ready := make(chan struct{})
	lob, err := New(ctx, Deps{Redis: rdb, DB: testenv.Postgres(t), Issuer: iss, Verifier: ver, Matches: matches},
		Config{RedisPrefix: prefix, RoomPoll: time.Hour, roomsReady: func() { close(ready) }, Unlimited: true,
			Rooms: rooms.Config{Argon2: rooms.Argon2{Time: 1, MemoryKiB: 64, Threads: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- lob.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	<-ready
	c := lobbyv1.NewLobbyServiceClient(serve(t, iss, ver, AuthPolicy(), lob.Register, nil))
	signIn := func(name string) (context.Context, string) {
		res, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: name})
		if err != nil {
			t.Fatal(err)
		}
		return auth.WithToken(ctx, res.GetToken()), res.GetPlayerId()
	}
	return c, signIn
}

func TestLobbyOverGRPC(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)

	fake := &fakeMatchService{reqs: make(chan *matchv1.CreateMatchRequest, 10)}
	matchConn := serve(t, iss, ver, auth.Policy{ServiceOnly: []string{matchv1.MatchService_CreateMatch_FullMethodName, matchv1.MatchService_ListMatches_FullMethodName}},
		func(s *grpc.Server) { matchv1.RegisterMatchServiceServer(s, fake) },
		auth.NewServiceCredentials(iss, "lobby", time.Hour))

	rdb, prefix := testenv.Redis(t)
	db := testenv.Postgres(t)
	lob, err := New(ctx, Deps{Redis: rdb, DB: db, Issuer: iss, Verifier: ver,
		Matches: matchclient.New(matchv1.NewMatchServiceClient(matchConn))},
		Config{RedisPrefix: prefix, Matchmaking: matchmaking.Config{WaveInterval: 5 * time.Millisecond,
			UpdateEvery: 5 * time.Millisecond, BotOfferAfter: 20 * time.Millisecond},
			Rooms: rooms.Config{Argon2: rooms.Argon2{Time: 1, MemoryKiB: 64, Threads: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- lob.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	conn := serve(t, iss, ver, AuthPolicy(), lob.Register, nil)
	c := lobbyv1.NewLobbyServiceClient(conn)

	// Sign-in and tokens.
	if _, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "x"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("one-letter name: %v", err)
	}
	if _, err := c.ListActiveMatches(ctx, &lobbyv1.ListActiveMatchesRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: %v", err)
	}
	signIn := func(name string) (context.Context, string) {
		res, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: name})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := c.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: res.GetRefreshToken()})
		if err != nil || ref.GetToken() == "" {
			t.Fatalf("refresh: %v", err)
		}
		p, err := ver.Verify(ref.GetToken())
		if err != nil || p.Subject != res.GetPlayerId() {
			t.Fatalf("refreshed token %+v, %v", p, err)
		}
		return auth.WithToken(ctx, ref.GetToken()), res.GetPlayerId()
	}
	ana, anaID := signIn("Ana")
	bo, boID := signIn("Bo")
	if _, err := c.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: "forged"}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("forged refresh: %v", err)
	}

	// A private room: wrong password, then the right one by invite code.
	room, err := c.CreateRoom(ana, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, Password: "hunter22", Rated: true})
	if err != nil {
		t.Fatal(err)
	}
	code := room.GetRoom().GetInviteCode()
	if _, err := c.JoinRoom(bo, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: code}, Password: "nope"}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("wrong password: %v", err)
	}
	joined, err := c.JoinRoom(bo, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: code}, Password: "hunter22"})
	if err != nil || joined.GetRoom().GetMatchId() == "" || joined.GetYourSeat() == gamev1.Seat_SEAT_UNSPECIFIED {
		t.Fatalf("join: %v, %v", joined, err)
	}
	if req := <-fake.reqs; !req.GetRated() || req.GetRequestId() != "room-"+room.GetRoom().GetRoomId() {
		t.Errorf("match request %v", req)
	}
	// One live match per player: Ana cannot queue or play a bot meanwhile.
	if _, err := c.PlayBot(ana, &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_BANQI, Variant: "standard",
		Level: gamev1.BotLevel_BOT_LEVEL_EASY}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("bot game during a live match: %v, want FailedPrecondition", err)
	}
	fake.end(joined.GetRoom().GetMatchId())

	// Quick pairing: both streams end matched in the same match.
	find := func(ctx context.Context) (*lobbyv1.Matched, error) {
		st, err := c.FindMatch(ctx, &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", Rated: true})
		if err != nil {
			return nil, err
		}
		first, err := st.Recv()
		if err != nil || first.GetQueued() == nil {
			return nil, err
		}
		for {
			m, err := st.Recv()
			if err != nil {
				return nil, err
			}
			if m.GetMatched() != nil {
				return m.GetMatched(), nil
			}
		}
	}
	// The fair-play rule for rated play: two fresh guests (no casual game
	// finished, not a day old) are told why they cannot queue rated yet.
	rst, rerr := c.FindMatch(ana, &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", Rated: true})
	if rerr == nil {
		_, rerr = rst.Recv()
	}
	if info, _ := reason.Of(status.Convert(rerr)); status.Code(rerr) != codes.FailedPrecondition || info.GetReason() != reason.RatedNotYet ||
		info.GetMetadata()["casual_games"] != "0" || info.GetMetadata()["min_casual_games"] != "3" || info.GetMetadata()["hours_left"] != "24" {
		t.Fatalf("a fresh guest queueing rated: %v (%v), want FAILED_PRECONDITION RATED_NOT_YET, 0 of 3 casual games, 24 hours", rerr, info.GetMetadata())
	}
	// A day later they are established.
	if _, err := db.Exec(ctx, `UPDATE players SET created_at = now() - interval '25 hours' WHERE player_id IN ($1, $2)`, anaID, boID); err != nil {
		t.Fatal(err)
	}
	type res struct {
		m   *lobbyv1.Matched
		err error
	}
	ch := make(chan res, 2)
	for _, who := range []context.Context{ana, bo} {
		go func() { m, err := find(who); ch <- res{m, err} }()
	}
	r1, r2 := <-ch, <-ch
	if r1.err != nil || r2.err != nil || r1.m.GetMatchId() != r2.m.GetMatchId() || r1.m.GetYourSeat() == r2.m.GetYourSeat() {
		t.Fatalf("find match: %+v %+v", r1, r2)
	}
	<-fake.reqs
	fake.end(r1.m.GetMatchId())

	// Accepting a bot offer: PlayBot ends the FindMatch stream, and the
	// ticket is gone, so Bo queueing next is not paired with Ana.
	st, err := c.FindMatch(ana, &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", AcceptBotOffer: true})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := st.Recv(); err != nil || m.GetQueued() == nil {
		t.Fatalf("queued: %v, %v", m, err)
	}
	for {
		m, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if m.GetBotOffered() != nil {
			break
		}
	}
	bot, err := c.PlayBot(ana, &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_BANQI, Variant: "standard",
		Level: gamev1.BotLevel_BOT_LEVEL_HARD, Seat: gamev1.Seat_SEAT_SECOND})
	if err != nil || bot.GetYourSeat() != gamev1.Seat_SEAT_SECOND {
		t.Fatalf("play bot: %v, %v", bot, err)
	}
	if req := <-fake.reqs; req.GetFirst().GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_HARD || req.GetSecond().GetPlayer().GetPlayerId() != anaID {
		t.Errorf("bot match request %v", req)
	}
	for {
		m, err := st.Recv()
		if m.GetMatched() != nil {
			t.Fatalf("matched after PlayBot: %v", m)
		}
		if err != nil {
			if status.Code(err) != codes.Aborted {
				t.Fatalf("FindMatch after PlayBot: %v; want the stream ended (ABORTED)", err)
			}
			break
		}
	}
	bst, err := c.FindMatch(bo, &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bst.Recv(); err != nil {
		t.Fatal(err)
	}
	ast, _ := c.FindMatch(ana, &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
	if m, err := ast.Recv(); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("FindMatch during a bot game: %v, %v; want FailedPrecondition", m, err)
	}
	active, err := c.ListActiveMatches(ana, &lobbyv1.ListActiveMatchesRequest{})
	if err != nil || len(active.GetMatches()) != 1 {
		t.Errorf("active matches: %d, %v; want the bot game", len(active.GetMatches()), err)
	}
	stats, err := c.GetStats(ana, &lobbyv1.GetStatsRequest{})
	if err != nil || stats.GetDisplayName() != "Ana" {
		t.Errorf("stats %v, %v", stats, err)
	}
	if _, err := c.GetStats(ana, &lobbyv1.GetStatsRequest{PlayerId: "nobody"}); status.Code(err) != codes.NotFound {
		t.Errorf("stats of nobody: %v", err)
	}
}

// WatchRoom sends the room at once, then reacts to the room's change
// events: with the fallback re-read an hour away, the host still sees the
// guest join and the match id within seconds.
// ListVariants refuses a game that does not exist, as every other RPC
// does, rather than answer an empty list; unspecified lists every game.
func TestListVariantsGames(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	c, _ := runRoomsLobby(t, iss, ver, &testenv.Matches{})
	if _, err := c.ListVariants(t.Context(), &lobbyv1.ListVariantsRequest{Game: 42}); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "game") {
		t.Errorf("game 42: %v, want InvalidArgument naming the game", err)
	}
	all, err := c.ListVariants(t.Context(), &lobbyv1.ListVariantsRequest{})
	if err != nil || len(all.GetVariants()) < 3 {
		t.Fatalf("every game: %v, %v", all, err)
	}
	banqi, err := c.ListVariants(t.Context(), &lobbyv1.ListVariantsRequest{Game: gamev1.Game_GAME_BANQI})
	if err != nil || len(banqi.GetVariants()) == 0 || len(banqi.GetVariants()) >= len(all.GetVariants()) {
		t.Fatalf("Banqi: %v, %v", banqi, err)
	}
}

// ListVariants labels the bot levels of every measured variant with the
// ladder's ratings (lobby.BotRatings), easiest first, and those of a
// variant never measured with none.
func TestListVariantsBotRatings(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	c, _ := runRoomsLobby(t, iss, ver, &testenv.Matches{})
	all, err := c.ListVariants(t.Context(), &lobbyv1.ListVariantsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	engineGame := map[gamev1.Game]engine.Game{gamev1.Game_GAME_QUORIDOR: engine.Quoridor,
		gamev1.Game_GAME_CORNERS: engine.Corners, gamev1.Game_GAME_BANQI: engine.Banqi}
	measured, unmeasured := 0, 0
	for _, v := range all.GetVariants() {
		want := lobby.BotRatings(engineGame[v.GetGame()], v.GetId())
		got := v.GetBotRatings()
		if len(want) == 0 {
			unmeasured++
			if len(got) != 0 {
				t.Errorf("%v %s (never measured): ratings %v, want none", v.GetGame(), v.GetId(), got)
			}
			continue
		}
		measured++
		if len(got) != len(want) {
			t.Errorf("%v %s: %d ratings %v, want %d", v.GetGame(), v.GetId(), len(got), got, len(want))
			continue
		}
		for i, r := range got {
			w := want[i]
			if r.GetLevel() != gamev1.BotLevel(w.Level) || r.GetRating() != int32(w.Rating) ||
				r.GetRatingLow() != int32(w.Low) || r.GetRatingHigh() != int32(w.High) {
				t.Errorf("%v %s rating %d: %v, want %+v", v.GetGame(), v.GetId(), i, r, w)
			}
		}
	}
	// Quoridor standard, Corners classic-3x3 and Banqi were measured.
	if measured < 3 || unmeasured == 0 {
		t.Errorf("%d variants measured, %d not; want at least 3 and 1", measured, unmeasured)
	}
	q, err := c.ListVariants(t.Context(), &lobbyv1.ListVariantsRequest{Game: gamev1.Game_GAME_QUORIDOR})
	if err != nil || len(q.GetVariants()) == 0 || q.GetVariants()[0].GetId() != "standard" {
		t.Fatalf("Quoridor: %v, %v", q, err)
	}
	if rs := q.GetVariants()[0].GetBotRatings(); len(rs) != 4 || rs[0].GetLevel() != gamev1.BotLevel_BOT_LEVEL_EASY || rs[0].GetRating() != 0 {
		t.Errorf("Quoridor standard: %v, want 4 levels from easy at 0", rs)
	}
}

func TestWatchRoomReactsToEvents(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	c, signIn := runRoomsLobby(t, iss, ver, &testenv.Matches{})
	ana, _ := signIn("Ana")
	bo, boID := signIn("Bo")
	room, err := c.CreateRoom(ana, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	if err != nil {
		t.Fatal(err)
	}
	id := room.GetRoom().GetRoomId()
	// The updates come from room change events: the test's time (under the
	// binary's timeout, or 15 min) ends far before RoomPoll's re-read.
	wctx, cancel := context.WithDeadline(ana, ptestenv.Deadline(t))
	defer cancel()
	w, err := c.WatchRoom(wctx, &lobbyv1.WatchRoomRequest{RoomId: id})
	if err != nil {
		t.Fatal(err)
	}
	first, err := w.Recv()
	if err != nil || first.GetRoom().GetStatus() != lobbyv1.RoomStatus_ROOM_STATUS_OPEN || len(first.GetRoom().GetMembers()) != 1 {
		t.Fatalf("first update %v, %v", first, err)
	}
	joined, err := c.JoinRoom(bo, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: id}})
	if err != nil || joined.GetRoom().GetMatchId() == "" {
		t.Fatalf("join: %v, %v", joined, err)
	}
	var last *lobbyv1.WatchRoomResponse
	for {
		u, err := w.Recv()
		if err != nil {
			if last == nil || !errors.Is(err, io.EOF) {
				t.Fatalf("after %v: %v", last, err)
			}
			break
		}
		last = u
	}
	r := last.GetRoom()
	if r.GetStatus() != lobbyv1.RoomStatus_ROOM_STATUS_STARTED || r.GetMatchId() != joined.GetRoom().GetMatchId() ||
		len(r.GetMembers()) != 2 || r.GetMembers()[1].GetPlayerId() != boID {
		t.Errorf("last update %v, want started with match %s and Bo", r, joined.GetRoom().GetMatchId())
	}
}

// A rematch over gRPC: the offer before the match ends is refused, the
// opponent's WatchRematch sees the offer, the acceptance starts a match
// with the seats swapped, and the watch ends with it; strangers and
// unknown matches get their codes.
func TestRematchOverGRPC(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	fake := &fakeMatchService{reqs: make(chan *matchv1.CreateMatchRequest, 10)}
	matchConn := serve(t, iss, ver, auth.Policy{ServiceOnly: []string{matchv1.MatchService_CreateMatch_FullMethodName, matchv1.MatchService_ListMatches_FullMethodName}},
		func(s *grpc.Server) { matchv1.RegisterMatchServiceServer(s, fake) },
		auth.NewServiceCredentials(iss, "lobby", time.Hour))
	c, signIn := runRoomsLobby(t, iss, ver, matchclient.New(matchv1.NewMatchServiceClient(matchConn)))
	ana, anaID := signIn("Ana")
	bo, boID := signIn("Bo")
	cy, _ := signIn("Cy")
	room, err := c.CreateRoom(ana, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, Password: "hunter22", HostSeat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := c.JoinRoom(bo, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: room.GetRoom().GetRoomId()}, Password: "hunter22"})
	if err != nil {
		t.Fatal(err)
	}
	<-fake.reqs
	first := joined.GetRoom().GetMatchId()
	if _, err := c.OfferRematch(ana, &lobbyv1.OfferRematchRequest{MatchId: first}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("offer during the match: %v, want FailedPrecondition", err)
	}
	fake.end(first)
	// A private room's match is NOT_FOUND to anyone else, like one that
	// does not exist.
	if _, err := c.OfferRematch(cy, &lobbyv1.OfferRematchRequest{MatchId: first}); status.Code(err) != codes.NotFound {
		t.Fatalf("offer by a stranger: %v, want NotFound", err)
	}
	sw, err := c.WatchRematch(cy, &lobbyv1.WatchRematchRequest{MatchId: first})
	if err == nil {
		_, err = sw.Recv() // a server stream's error arrives with the first Recv
	}
	if status.Code(err) != codes.NotFound {
		t.Fatalf("watch by a stranger: %v, want NotFound", err)
	}
	if _, err := c.DeclineRematch(ana, &lobbyv1.DeclineRematchRequest{MatchId: "m-nope"}); status.Code(err) != codes.NotFound {
		t.Fatalf("decline of an unknown match: %v, want NotFound", err)
	}

	// The test's time ends far before RoomPoll's re-read: events carry the
	// updates.
	wctx, cancel := context.WithDeadline(bo, ptestenv.Deadline(t))
	defer cancel()
	w, err := c.WatchRematch(wctx, &lobbyv1.WatchRematchRequest{MatchId: first})
	if err != nil {
		t.Fatal(err)
	}
	u, err := w.Recv()
	if err != nil || u.GetRematch().GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_NONE || u.GetRematch().GetOpponent().GetPlayerId() != anaID {
		t.Fatalf("first watch update %v, %v", u, err)
	}
	off, err := c.OfferRematch(ana, &lobbyv1.OfferRematchRequest{MatchId: first})
	if err != nil || off.GetRematch().GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED {
		t.Fatalf("offer: %v, %v", off, err)
	}
	u, err = w.Recv()
	if err != nil || u.GetRematch().GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED ||
		!slices.Equal(u.GetRematch().GetOfferedBy(), []string{anaID}) {
		t.Fatalf("watch after the offer %v, %v", u, err)
	}
	acc, err := c.OfferRematch(bo, &lobbyv1.OfferRematchRequest{MatchId: first})
	if err != nil || acc.GetRematch().GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_STARTED ||
		acc.GetRematch().GetYourSeat() != gamev1.Seat_SEAT_FIRST {
		t.Fatalf("accept: %v, %v; want started with Bo first", acc, err)
	}
	req := <-fake.reqs
	if req.GetFirst().GetPlayer().GetPlayerId() != boID || req.GetSecond().GetPlayer().GetPlayerId() != anaID {
		t.Fatalf("rematch seats %v; want Bo first (Ana hosted as first)", req)
	}
	var last *lobbyv1.WatchRematchResponse
	for {
		u, err := w.Recv()
		if err != nil {
			if last == nil || !errors.Is(err, io.EOF) {
				t.Fatalf("after %v: %v", last, err)
			}
			break
		}
		last = u
	}
	if last.GetRematch().GetNewMatchId() != acc.GetRematch().GetNewMatchId() || last.GetRematch().GetYourSeat() != gamev1.Seat_SEAT_FIRST {
		t.Fatalf("last watch update %v, want the new match", last)
	}
	if _, err := c.DeclineRematch(ana, &lobbyv1.DeclineRematchRequest{MatchId: first}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("decline after the start: %v, want FailedPrecondition", err)
	}
}

// SetDisplayName renames the caller in the database and in a fresh token;
// a bad name changes nothing.
func TestSetDisplayName(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	rdb, prefix := testenv.Redis(t)
	lob, err := New(ctx, Deps{Redis: rdb, DB: testenv.Postgres(t), Issuer: iss, Verifier: ver, Matches: &testenv.Matches{}},
		Config{RedisPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	c := lobbyv1.NewLobbyServiceClient(serve(t, iss, ver, AuthPolicy(), lob.Register, nil))
	res, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Player 1"})
	if err != nil {
		t.Fatal(err)
	}
	me := auth.WithToken(ctx, res.GetToken())
	if _, err := c.SetDisplayName(me, &lobbyv1.SetDisplayNameRequest{DisplayName: " Ana"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("name with a leading space: %v, want InvalidArgument", err)
	}
	if _, err := c.SetDisplayName(ctx, &lobbyv1.SetDisplayNameRequest{DisplayName: "Ana"}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: %v, want Unauthenticated", err)
	}
	st, err := c.GetStats(me, &lobbyv1.GetStatsRequest{})
	if err != nil || st.GetDisplayName() != "Player 1" {
		t.Fatalf("after refused renames: %v, %v", st, err)
	}
	got, err := c.SetDisplayName(me, &lobbyv1.SetDisplayNameRequest{DisplayName: "Ana Lima"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ver.Verify(got.GetToken())
	if err != nil || p.Subject != res.GetPlayerId() || p.DisplayName != "Ana Lima" {
		t.Fatalf("new token %+v, %v; want the same player named Ana Lima", p, err)
	}
	st, err = c.GetStats(auth.WithToken(ctx, got.GetToken()), &lobbyv1.GetStatsRequest{})
	if err != nil || st.GetDisplayName() != "Ana Lima" {
		t.Fatalf("stats after the rename: %v, %v", st, err)
	}
}

// GetInvite tells whoever holds an invite who invites them to what, before
// joining and signed out too, checked as the join is: a private room's
// details only with its password (its members need none), an unknown code
// NOT_FOUND, repeated wrong guesses refused, a public room's with no
// password; never the invite code or the match id.
func TestGetInvite(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	c, signIn := runRoomsLobby(t, iss, ver, &testenv.Matches{})
	ctx := t.Context()
	ana, _ := signIn("Ana")
	bo, _ := signIn("Bo")
	cy, _ := signIn("Cy")
	clock := &gamev1.TimeControl{BaseMs: 300_000, IncrementMs: 3_000}
	room, err := c.CreateRoom(ana, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", TimeControl: clock,
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, Password: "hunter22"})
	if err != nil {
		t.Fatal(err)
	}
	code := room.GetRoom().GetInviteCode()
	for _, who := range []struct {
		name string
		ctx  context.Context
		pw   string
	}{{"signed out", ctx, "hunter22"}, {"a player", bo, "hunter22"}, {"the host", ana, ""}, {"lower case", cy, "hunter22"}} {
		c2 := code
		if who.name == "lower case" {
			c2 = strings.ToLower(code)
		}
		res, err := c.GetInvite(who.ctx, &lobbyv1.GetInviteRequest{InviteCode: c2, Password: who.pw})
		if err != nil {
			t.Fatalf("%s: %v", who.name, err)
		}
		r := res.GetRoom()
		if len(r.GetMembers()) != 1 || r.GetMembers()[0].GetDisplayName() != "Ana" || !r.GetMembers()[0].GetHost() ||
			r.GetGame() != gamev1.Game_GAME_QUORIDOR || r.GetVariant() != "standard" ||
			r.GetTimeControl().GetBaseMs() != 300_000 || r.GetTimeControl().GetIncrementMs() != 3_000 ||
			r.GetStatus() != lobbyv1.RoomStatus_ROOM_STATUS_OPEN || r.GetVisibility() != lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE {
			t.Errorf("%s: %v, want Ana's open private Quoridor standard 5+3", who.name, r)
		}
		if r.GetInviteCode() != "" || r.GetMatchId() != "" {
			t.Errorf("%s: invite code %q, match %q sent", who.name, r.GetInviteCode(), r.GetMatchId())
		}
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		req  *lobbyv1.GetInviteRequest
		want codes.Code
	}{
		{"signed out, no password", ctx, &lobbyv1.GetInviteRequest{InviteCode: code}, codes.PermissionDenied},
		{"signed out, wrong password", ctx, &lobbyv1.GetInviteRequest{InviteCode: code, Password: "hunter2"}, codes.PermissionDenied},
		{"a player, wrong password", bo, &lobbyv1.GetInviteRequest{InviteCode: code, Password: "nope"}, codes.PermissionDenied},
		{"an unknown code", ctx, &lobbyv1.GetInviteRequest{InviteCode: "ZZZZZZZZ", Password: "hunter22"}, codes.NotFound},
		{"no code", ctx, &lobbyv1.GetInviteRequest{}, codes.InvalidArgument},
	} {
		res, err := c.GetInvite(tc.ctx, tc.req)
		if status.Code(err) != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, res, err, tc.want)
		}
		if res.GetRoom() != nil {
			t.Errorf("%s: room %v sent with the refusal", tc.name, res.GetRoom())
		}
	}
	// Guessing is limited as for JoinRoom, and the guesses count for it.
	var guessErr error
	for range 10 {
		if _, guessErr = c.GetInvite(bo, &lobbyv1.GetInviteRequest{InviteCode: code, Password: "guess"}); status.Code(guessErr) != codes.PermissionDenied {
			break
		}
	}
	if status.Code(guessErr) != codes.ResourceExhausted {
		t.Fatalf("repeated wrong guesses: %v, want ResourceExhausted", guessErr)
	}
	if _, err := c.JoinRoom(bo, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: code}, Password: "hunter22"}); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("join after the guesses: %v, want ResourceExhausted", err)
	}
	// Another player, with the password, is not locked out; once the room
	// started its code opens nothing.
	if _, err := c.JoinRoom(cy, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: code}, Password: "hunter22"}); err != nil {
		t.Fatalf("Cy joins: %v", err)
	}
	if res, err := c.GetInvite(ana, &lobbyv1.GetInviteRequest{InviteCode: code}); status.Code(err) != codes.NotFound && (err != nil || res.GetRoom().GetMatchId() != "") {
		t.Errorf("a started room's invite: %v, %v; want NotFound or no match id", res, err)
	}

	// A public room: no password; one sent is refused.
	pub, err := c.CreateRoom(ana, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3",
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.GetInvite(ctx, &lobbyv1.GetInviteRequest{InviteCode: pub.GetRoom().GetInviteCode()})
	if err != nil || res.GetRoom().GetGame() != gamev1.Game_GAME_CORNERS || res.GetRoom().GetTimeControl() != nil {
		t.Errorf("public room: %v, %v; want Corners without a clock", res, err)
	}
	_, err = c.GetInvite(ctx, &lobbyv1.GetInviteRequest{InviteCode: pub.GetRoom().GetInviteCode(), Password: "x"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("a password for a public room: %v, want InvalidArgument", err)
	}
}
