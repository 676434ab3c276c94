package matchserver_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/grpcserve/rpcfuzz"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/testenv"
	"tabuleiro.dev/services/match/matchserver"
)

// FuzzMatchRequests sends every MatchService request, as bytes on the
// wire, as a seated player, over gRPC, Connect and gRPC-Web (one HTTP
// framing after the other, the same bytes): no input may get INTERNAL (or panic), and a
// refused one changes nothing in Redis. The seeds are realistic requests
// of every RPC (Play's first message included), some good and some not;
// `go test` runs them only, `go test -fuzz FuzzMatchRequests
// ./matchserver/` explores.
func FuzzMatchRequests(f *testing.F) {
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	rdb, prefix := testenv.Redis(f)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	f.Cleanup(func() { cancel(); <-done; <-done })
	srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb, DB: testenv.Postgres(f)}, matchserver.Config{
		KeyPrefix: prefix, InstanceID: "fuzz",
		// Nothing happens by itself while fuzzing: no window runs out, and
		// a seat's departure is recorded as its stream ends (within the
		// call), not a grace period later.
		Match:    match.Config{ReconnectWindow: 24 * time.Hour, FirstPlyTimeout: 24 * time.Hour, PresenceGrace: -1},
		Recorder: recorder.Config{Block: 20 * time.Millisecond, MinIdle: 200 * time.Millisecond, Retry: 20 * time.Millisecond},
	})
	go func() { _ = srv.Run(ctx); done <- struct{}{} }()
	tracker := rpcfuzz.NewTracker()
	lis := grpcservetest.Listen(f)
	go func() {
		_ = grpcserve.Run(ctx, grpcserve.Options{Listener: lis, ShutdownTimeout: time.Second, ServerOptions: tracker.ServerOptions(),
			Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})}, srv.Register)
		done <- struct{}{}
	}()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = conn.Close() })
	token := func(who string) string {
		tok, _, _ := iss.IssuePlayer(who, who, true, time.Hour)
		if who == "lobby" {
			tok, _, _ = iss.IssueService("lobby", time.Hour)
		}
		return tok
	}
	c := matchv1.NewMatchServiceClient(conn)
	seat := func(id string) *matchv1.SeatSpec {
		return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: id, DisplayName: id}}}
	}
	create := func(req *matchv1.CreateMatchRequest) string {
		req.First, req.Second = seat("alice"), seat("bob")
		r, err := c.CreateMatch(auth.WithToken(ctx, token("lobby")), req)
		if err != nil {
			f.Fatal(err)
		}
		return r.GetMatchId()
	}
	q := create(&matchv1.CreateMatchRequest{RequestId: "fuzz-q", Game: gamev1.Game_GAME_QUORIDOR})
	b := create(&matchv1.CreateMatchRequest{RequestId: "fuzz-b", Game: gamev1.Game_GAME_BANQI})
	private := create(&matchv1.CreateMatchRequest{RequestId: "fuzz-p", Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", Private: true})

	tg := &rpcfuzz.Target{
		Conn: conn, Service: matchv1.File_tabuleiro_match_v1_match_service_proto.Services().ByName("MatchService"), Tracker: tracker,
		Caller: func(ctx context.Context) context.Context { return auth.WithToken(ctx, token("alice")) },
		// Bookkeeping a refusal may change: instances' alive marks,
		// presence and stream leases, the recorder's stream, the
		// instances asking for sweeper groups, and the groups' role keys
		// ("sweeper:{tag}"), which instances take and renew in the
		// background.
		State: rpcfuzz.RedisState(rdb, prefix, "alive", "presence", "lease", "streams", "outbox", "sweepers", "sweeper:"),
		// And over the browsers' framings (Connect, gRPC-Web) on the
		// same port.
		BaseURL: "http://" + lis.Addr().String(),
	}
	join := func(id string, seq int64) *matchv1.PlayRequest {
		return &matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: id, LastSeq: seq}}}
	}
	seeds := map[string][]proto.Message{
		"Play":           {join(q, 0), join(b, 3), join("m_unknown", 0), &matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: 1, Notation: "e2"}}}},
		"Follow":         {&matchv1.FollowRequest{MatchId: q}, &matchv1.FollowRequest{MatchId: private, LastSeq: -5}, &matchv1.FollowRequest{}},
		"SubmitPly":      {&matchv1.SubmitPlyRequest{MatchId: q, PlyNumber: 1, Notation: "e2"}, &matchv1.SubmitPlyRequest{MatchId: q, PlyNumber: 9, Notation: "e3h"}, &matchv1.SubmitPlyRequest{MatchId: b, PlyNumber: 1, Notation: "zz"}},
		"Resign":         {&matchv1.ResignRequest{MatchId: "m_unknown"}, &matchv1.ResignRequest{}},
		"OfferDraw":      {&matchv1.OfferDrawRequest{MatchId: b}, &matchv1.OfferDrawRequest{MatchId: "m_unknown"}},
		"AcceptDraw":     {&matchv1.AcceptDrawRequest{MatchId: q}, &matchv1.AcceptDrawRequest{}},
		"DeclineDraw":    {&matchv1.DeclineDrawRequest{MatchId: q}, &matchv1.DeclineDrawRequest{MatchId: private}},
		"AnswerProbe":    {&matchv1.AnswerProbeRequest{MatchId: q, Id: 1}, &matchv1.AnswerProbeRequest{MatchId: private, Id: 1 << 63}, &matchv1.AnswerProbeRequest{}},
		"Watch":          {&matchv1.WatchRequest{MatchId: q}, &matchv1.WatchRequest{MatchId: private}, &matchv1.WatchRequest{MatchId: b, LastSeq: 1 << 62}},
		"GetMatch":       {&matchv1.GetMatchRequest{MatchId: b}, &matchv1.GetMatchRequest{}},
		"ListLegalPlies": {&matchv1.ListLegalPliesRequest{MatchId: q, From: "e1"}, &matchv1.ListLegalPliesRequest{MatchId: b, Ply: "a1", ExpectedPlyNumber: 1}, &matchv1.ListLegalPliesRequest{MatchId: q, From: "zz9"}},
		"CreateMatch":    {&matchv1.CreateMatchRequest{RequestId: "x", Game: gamev1.Game_GAME_QUORIDOR, First: seat("alice"), Second: seat("carol")}},
		"ListMatches":    {&matchv1.ListMatchesRequest{PlayerId: "alice", Limit: 10}},
		"InviteSpectator": {&matchv1.InviteSpectatorRequest{MatchId: private, PlayerId: "carol"}, &matchv1.InviteSpectatorRequest{MatchId: q},
			&matchv1.InviteSpectatorRequest{MatchId: "m_unknown", PlayerId: "carol"}},
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
	f.Add("SubmitPly", []byte{0x0a, 0x02, 0xc3, 0x28})
	f.Add("Play", []byte{0x0a, 0x04, 0x0a, 0x02, 0xff, 0xfe})
	f.Add("GetMatch", []byte{0x0a, 0x7f})
	f.Fuzz(func(t *testing.T, method string, payload []byte) {
		rpcfuzz.Check(t, tg, method, payload)
	})
}
