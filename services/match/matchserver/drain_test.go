package matchserver_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
	"tabuleiro.dev/services/match/matchserver"
)

// TestFollowDrainsOnShutdown: when an instance stops, a Follow stream gets
// its drain notice and ends UNAVAILABLE, over gRPC as over gRPC-Web
// (net/http's streams are drained before grpc-go's), and the server stops
// in time.
func TestFollowDrainsOnShutdown(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	rdb, prefix := testenv.Redis(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb}, matchserver.Config{KeyPrefix: prefix, InstanceID: "drain", Match: match.Config{}})
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx) }()
	lis := grpcservetest.Listen(t)
	served := make(chan error, 1)
	go func() {
		served <- grpcserve.Run(ctx, grpcserve.Options{Listener: lis, ShutdownTimeout: 5 * time.Second,
			Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})}, srv.Register)
	}()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := matchv1.NewMatchServiceClient(conn)
	lobby, _, _ := iss.IssueService("lobby", time.Hour)
	created, err := client.CreateMatch(auth.WithToken(t.Context(), lobby), &matchv1.CreateMatchRequest{
		RequestId: "drain-1", Game: quoridor(nil).Game, First: playerSeat("alice"), Second: playerSeat("bob"),
	})
	if err != nil {
		t.Fatal(err)
	}
	id := created.GetMatchId()
	tok := func(who string) string {
		s, _, _ := iss.IssuePlayer(who, who, true, time.Hour)
		return s
	}

	type end struct {
		name    string
		drained bool
		code    codes.Code
	}
	ends := make(chan end, 3)
	opened := make(chan struct{}, 3)
	// alice over gRPC.
	go func() {
		st, err := client.Follow(auth.WithToken(context.Background(), tok("alice")), &matchv1.FollowRequest{MatchId: id})
		if err != nil {
			ends <- end{"grpc", false, code(err)}
			return
		}
		drained := false
		for {
			m, err := st.Recv()
			if err != nil {
				ends <- end{"grpc", drained, code(err)}
				return
			}
			if m.GetSnapshot() != nil {
				opened <- struct{}{}
			}
			drained = drained || m.GetDrain() != nil
		}
	}()
	// bob over gRPC-Web.
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return lis.DialContext(ctx) }}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	web := func(name, who string, opts ...connect.ClientOption) {
		c := connect.NewClient[matchv1.FollowRequest, matchv1.FollowResponse](hc, baseURL+matchv1.MatchService_Follow_FullMethodName, opts...)
		r := connect.NewRequest(&matchv1.FollowRequest{MatchId: id})
		r.Header().Set("Authorization", "Bearer "+tok(who))
		st, err := c.CallServerStream(context.Background(), r)
		if err != nil {
			ends <- end{name, false, code(err)}
			return
		}
		drained := false
		for st.Receive() {
			if st.Msg().GetSnapshot() != nil {
				opened <- struct{}{}
			}
			drained = drained || st.Msg().GetDrain() != nil
		}
		ends <- end{name, drained, code(st.Err())}
	}
	go web("grpc-web", "bob", connect.WithGRPCWeb())
	for range 2 {
		select {
		case <-opened:
		case <-time.After(time.Until(ptestenv.Deadline(t))):
			t.Fatal("streams did not open")
		}
	}
	cancel() // SIGTERM
	for range 2 {
		select {
		case e := <-ends:
			if !e.drained || e.code != codes.Unavailable {
				t.Errorf("%s: drained %v, ended %v; want a drain notice and Unavailable", e.name, e.drained, e.code)
			}
		case <-time.After(time.Until(ptestenv.Deadline(t))):
			t.Fatal("a stream did not end after the shutdown")
		}
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("grpcserve.Run: %v", err)
		}
	case <-time.After(time.Until(ptestenv.Deadline(t))):
		t.Fatal("the server did not stop")
	}
	<-ran
}
