package lobbyserver

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/grpcserve/rpcfuzz"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/rooms"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// FuzzLobbyRequests sends every LobbyService request, as bytes on the
// wire, as a signed-in player: no input may get INTERNAL (or panic), and
// a refused one changes nothing (Redis, players). The seeds are realistic
// requests of every RPC, some good and some not; `go test` runs them only,
// `go test -fuzz FuzzLobbyRequests ./lobbyserver/` explores.
func FuzzLobbyRequests(f *testing.F) {
	ctx := context.WithoutCancel(f.Context())
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	fake := &fakeMatchService{reqs: make(chan *matchv1.CreateMatchRequest, 1<<16)}
	matchConn := serve(f, iss, ver, auth.Policy{ServiceOnly: []string{matchv1.MatchService_CreateMatch_FullMethodName, matchv1.MatchService_ListMatches_FullMethodName}},
		func(s *grpc.Server) { matchv1.RegisterMatchServiceServer(s, fake) },
		auth.NewServiceCredentials(iss, "lobby", time.Hour))
	rdb, prefix := testenv.Redis(f)
	db := testenv.Postgres(f)
	lob, err := New(ctx, Deps{Redis: rdb, DB: db, Issuer: iss, Verifier: ver,
		Matches: matchclient.New(matchv1.NewMatchServiceClient(matchConn))},
		Config{RedisPrefix: prefix, Unlimited: true, Rooms: rooms.Config{Argon2: rooms.Argon2{Time: 1, MemoryKiB: 64, Threads: 1}}, Passkeys: testSite})
	if err != nil {
		f.Fatal(err)
	}
	tracker := rpcfuzz.NewTracker()
	lis, conn := listen(f)
	// Served as in production (grpcserve.Run): gRPC, Connect and gRPC-Web
	// on one port.
	srvCtx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		_ = grpcserve.Run(srvCtx, grpcserve.Options{Listener: lis, ShutdownTimeout: time.Second,
			Auth: auth.NewInterceptor(ver, AuthPolicy()), ServerOptions: tracker.ServerOptions()}, lob.Register)
		close(served)
	}()
	f.Cleanup(func() { stop(); <-served })
	c := lobbyv1.NewLobbyServiceClient(conn)

	// The world the requests find: a host with a public and a private
	// room, and the fuzzing player.
	host, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Host"})
	if err != nil {
		f.Fatal(err)
	}
	me, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Fuzzer"})
	if err != nil {
		f.Fatal(err)
	}
	hostCtx := auth.WithToken(ctx, host.GetToken())
	q := gamev1.Game_GAME_QUORIDOR
	public, err := c.CreateRoom(hostCtx, &lobbyv1.CreateRoomRequest{Game: q, Variant: "standard", Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	if err != nil {
		f.Fatal(err)
	}
	private, err := c.CreateRoom(hostCtx, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3",
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, Password: "hunter22", Rated: true})
	if err != nil {
		f.Fatal(err)
	}
	// Bookkeeping that a refusal may change: rate limits (wrong password
	// guesses included), stream leases and passkey challenges (a refused
	// answer uses its challenge up: each is single-use).
	redisState := rpcfuzz.RedisState(rdb, prefix, ":rl:", ":streams:", ":pwfail:", ":pwsrc:", "{signin}:", ":passkey-challenge:")
	tg := &rpcfuzz.Target{
		Conn: conn, Service: lobbyv1.File_tabuleiro_lobby_v1_lobby_service_proto.Services().ByName("LobbyService"), Tracker: tracker,
		// And over the browsers' framings (Connect, gRPC-Web).
		BaseURL: "http://" + lis.Addr().String(),
		Caller:  func(ctx context.Context) context.Context { return auth.WithToken(ctx, me.GetToken()) },
		State: func(ctx context.Context) (map[string]string, error) {
			st, err := redisState(ctx)
			if err != nil {
				return nil, err
			}
			var n int
			if err := db.QueryRow(ctx, `SELECT count(*) FROM players`).Scan(&n); err != nil {
				return nil, err
			}
			st["players"] = fmt.Sprint(n)
			if err := db.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n); err != nil {
				return nil, err
			}
			st["accounts"] = fmt.Sprint(n)
			return st, nil
		},
	}

	clock := &gamev1.TimeControl{BaseMs: 300_000, IncrementMs: 2_000}
	seeds := map[string][]proto.Message{
		"SignInGuest":  {&lobbyv1.SignInGuestRequest{DisplayName: "Ana Lima"}, &lobbyv1.SignInGuestRequest{DisplayName: "Аnа"}, &lobbyv1.SignInGuestRequest{}},
		"RefreshToken": {&lobbyv1.RefreshTokenRequest{RefreshToken: host.GetRefreshToken()}, &lobbyv1.RefreshTokenRequest{Token: me.GetToken()}, &lobbyv1.RefreshTokenRequest{RefreshToken: "x.y.z"}},
		"ListVariants": {&lobbyv1.ListVariantsRequest{}, &lobbyv1.ListVariantsRequest{Game: gamev1.Game_GAME_BANQI}, &lobbyv1.ListVariantsRequest{Game: 99}},
		"CreateRoom": {
			&lobbyv1.CreateRoomRequest{Game: q, Variant: "standard", TimeControl: clock, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC},
			&lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_BANQI, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE, Password: "abc"},
			&lobbyv1.CreateRoomRequest{Game: q, Variant: "nope", Rated: true},
		},
		"ListRooms": {&lobbyv1.ListRoomsRequest{}, &lobbyv1.ListRoomsRequest{Game: q, Variant: "standard", PageSize: 10, PageToken: "9223372036854775807"}, &lobbyv1.ListRoomsRequest{PageSize: -1}},
		"JoinRoom": {
			&lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: private.GetRoom().GetInviteCode()}, Password: "wrong"},
			&lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: public.GetRoom().GetRoomId()}},
			&lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: "ZZZZZZZZ"}},
			&lobbyv1.JoinRoomRequest{},
		},
		"GetInvite": {
			&lobbyv1.GetInviteRequest{InviteCode: private.GetRoom().GetInviteCode(), Password: "wrong"},
			&lobbyv1.GetInviteRequest{InviteCode: public.GetRoom().GetInviteCode()},
			&lobbyv1.GetInviteRequest{InviteCode: "ZZZZZZZZ"},
			&lobbyv1.GetInviteRequest{},
		},
		"LeaveRoom":         {&lobbyv1.LeaveRoomRequest{RoomId: public.GetRoom().GetRoomId()}, &lobbyv1.LeaveRoomRequest{RoomId: "r_unknown"}},
		"WatchRoom":         {&lobbyv1.WatchRoomRequest{RoomId: public.GetRoom().GetRoomId()}, &lobbyv1.WatchRoomRequest{RoomId: private.GetRoom().GetRoomId()}, &lobbyv1.WatchRoomRequest{}},
		"FindMatch":         {&lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", Rated: true}, &lobbyv1.FindMatchRequest{Game: q, TimeControl: &gamev1.TimeControl{}}},
		"PlayBot":           {&lobbyv1.PlayBotRequest{Game: q, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST}, &lobbyv1.PlayBotRequest{Game: q, Level: 77}},
		"ListLiveMatches":   {&lobbyv1.ListLiveMatchesRequest{PageSize: 50}, &lobbyv1.ListLiveMatchesRequest{PageToken: "9223372036854775807"}, &lobbyv1.ListLiveMatchesRequest{PageToken: "-1", Order: 9}},
		"ListActiveMatches": {&lobbyv1.ListActiveMatchesRequest{}},
		"ListGames":         {&lobbyv1.ListGamesRequest{PageSize: 30}, &lobbyv1.ListGamesRequest{PlayerId: host.GetPlayerId(), PageToken: "garbage"}, &lobbyv1.ListGamesRequest{PlayerId: "p_nobody"}},
		"GetGame":           {&lobbyv1.GetGameRequest{GameId: "m-unknown"}, &lobbyv1.GetGameRequest{}},
		"ReviewGame":        {&lobbyv1.ReviewGameRequest{GameId: "m-unknown"}, &lobbyv1.ReviewGameRequest{}},
		"GetStats":          {&lobbyv1.GetStatsRequest{}, &lobbyv1.GetStatsRequest{PlayerId: host.GetPlayerId()}},
		"OfferRematch":      {&lobbyv1.OfferRematchRequest{MatchId: "m-unknown"}, &lobbyv1.OfferRematchRequest{}},
		"DeclineRematch":    {&lobbyv1.DeclineRematchRequest{MatchId: "m-unknown"}},
		"WatchRematch":      {&lobbyv1.WatchRematchRequest{MatchId: "m-unknown"}, &lobbyv1.WatchRematchRequest{}},
		"SetDisplayName":    {&lobbyv1.SetDisplayNameRequest{DisplayName: "Fuzzer Two"}, &lobbyv1.SetDisplayNameRequest{DisplayName: "<b>"}},
		"ClaimAccount": {&lobbyv1.ClaimAccountRequest{Username: "a1", Password: "long enough"}, &lobbyv1.ClaimAccountRequest{Username: "Аnа_x", Password: "long enough"},
			&lobbyv1.ClaimAccountRequest{Username: "fuzzer", Password: "short"}, &lobbyv1.ClaimAccountRequest{Username: "fuzzer", Password: "long enough"}},
		"SignIn": {&lobbyv1.SignInRequest{Username: "fuzzer", Password: "long enough"}, &lobbyv1.SignInRequest{Username: "fuzzer", Password: "wrong one"},
			&lobbyv1.SignInRequest{Username: "\u0000x", Password: "x"}, &lobbyv1.SignInRequest{}},
		"ListSessions": {&lobbyv1.ListSessionsRequest{}},
		"SignOut":      {&lobbyv1.SignOutRequest{SessionId: "f_nope"}, &lobbyv1.SignOutRequest{SessionId: "f_x", Everywhere: true}},
		"ChangePassword": {&lobbyv1.ChangePasswordRequest{CurrentPassword: "long enough", NewPassword: "another long one"},
			&lobbyv1.ChangePasswordRequest{CurrentPassword: "wrong one", NewPassword: "another long one"}, &lobbyv1.ChangePasswordRequest{NewPassword: "short"}},
		"BeginPasskeyRegistration": {&lobbyv1.BeginPasskeyRegistrationRequest{}},
		"FinishPasskeyRegistration": {&lobbyv1.FinishPasskeyRegistrationRequest{CredentialJson: "{}"},
			&lobbyv1.FinishPasskeyRegistrationRequest{CredentialJson: `{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"}}`, Name: "laptop"},
			&lobbyv1.FinishPasskeyRegistrationRequest{}},
		"BeginPasskeySignIn": {&lobbyv1.BeginPasskeySignInRequest{}},
		"FinishPasskeySignIn": {&lobbyv1.FinishPasskeySignInRequest{CredentialJson: "{}"},
			&lobbyv1.FinishPasskeySignInRequest{CredentialJson: `{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiQUFBQSIsIm9yaWdpbiI6Imh0dHBzOi8vdGFidWxlaXJvLnRlc3QifQ","authenticatorData":"AAAA","signature":"AAAA","userHandle":"AAAA"}}`, Device: "phone"},
			&lobbyv1.FinishPasskeySignInRequest{}},
		"ListPasskeys":      {&lobbyv1.ListPasskeysRequest{}},
		"RemovePasskey":     {&lobbyv1.RemovePasskeyRequest{PasskeyId: "AAAA"}, &lobbyv1.RemovePasskeyRequest{}},
		"StartDeviceSignIn": {&lobbyv1.StartDeviceSignInRequest{Device: "tabuleiro"}, &lobbyv1.StartDeviceSignInRequest{Device: "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"}},
		"ApproveDeviceSignIn": {&lobbyv1.ApproveDeviceSignInRequest{UserCode: "BCDF-GHJK"}, &lobbyv1.ApproveDeviceSignInRequest{UserCode: "aaaa", Deny: true},
			&lobbyv1.ApproveDeviceSignInRequest{}},
		"PollDeviceSignIn":  {&lobbyv1.PollDeviceSignInRequest{DeviceCode: "dc_x"}, &lobbyv1.PollDeviceSignInRequest{}},
		"ExportAccountData": {&lobbyv1.ExportAccountDataRequest{}},
		"DeleteAccount":     {&lobbyv1.DeleteAccountRequest{Password: "wrong password"}, &lobbyv1.DeleteAccountRequest{}},
		"MergeGuest": {&lobbyv1.MergeGuestRequest{GuestRefreshToken: "e30.e30.AAAA"}, &lobbyv1.MergeGuestRequest{GuestToken: "garbage"},
			&lobbyv1.MergeGuestRequest{GuestRefreshToken: "a", GuestToken: "b"}, &lobbyv1.MergeGuestRequest{}},
		"GetProfile": {&lobbyv1.GetProfileRequest{Username: "nobody_here"}, &lobbyv1.GetProfileRequest{Username: "Ana_B", RecentGames: 51}},
	}
	methods := tg.Service.Methods()
	for i := range methods.Len() {
		name := string(methods.Get(i).Name())
		if len(seeds[name]) == 0 {
			f.Fatalf("no seed for %s: every request of the service has seeds", name)
		}
		rpcfuzz.Seed(f, name, seeds[name]...)
	}
	// Bytes no client library would send: invalid UTF-8, a cut message.
	f.Add("SignInGuest", []byte{0x0a, 0x03, 'A', 0xff, 0xfe})
	f.Add("JoinRoom", []byte{0x12, 0x10, 'A'})
	f.Fuzz(func(t *testing.T, method string, payload []byte) {
		rpcfuzz.Check(t, tg, method, payload)
	})
}

// listen returns a bufconn listener and a client connection to it.
func listen(t testing.TB) (*grpcservetest.Listener, *grpc.ClientConn) {
	t.Helper()
	lis := grpcservetest.Listen(t)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return lis, conn
}
