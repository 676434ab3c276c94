package matchserver_test

// A ply's round trip over each protocol a client may use, against one
// match instance on a loopback TCP port (the split between grpc-go's own
// transport and net/http included):
//
//	go test -run '^$' -bench PlyRoundTrip -benchtime 2000x ./services/match/matchserver/
//
// BenchmarkPlyRoundTripInterleaved gives the latency ratios on a noisy
// machine; BenchmarkPlyRoundTrip each path's CPU time.
// Each op is one ply: sent, and its ply_played event back at the client
// that sent it. "cpu-us/ply" is the whole process's CPU time (client and
// server, both in this process) per ply. The ratio of the browser
// protocols to native gRPC is the figure to compare, not the absolute
// times (the machine is shared).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
	"tabuleiro.dev/services/match/matchserver"
)

// tcpMatch is one match instance on a loopback port.
type tcpMatch struct {
	addr string
	iss  *auth.Issuer
}

func startTCPMatch(b *testing.B) *tcpMatch {
	b.Helper()
	key, err := auth.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	rdb, prefix := testenv.Redis(b)
	db := testenv.Postgres(b)
	ctx, cancel := context.WithCancel(context.Background())
	srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb, DB: db}, matchserver.Config{
		KeyPrefix: prefix, InstanceID: "bench", Match: match.Config{},
		// alice and bob play at machine speed, far past a person's call
		// rate.
		Unlimited: true,
	})
	done := make(chan struct{}, 2)
	go func() { _ = srv.Run(ctx); done <- struct{}{} }()
	addrs := make(chan string, 1)
	go func() {
		_ = grpcserve.Run(ctx, grpcserve.Options{
			Addr: "127.0.0.1:0", ShutdownTimeout: time.Second, OnListen: func(a net.Addr) { addrs <- a.String() },
			Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()}),
		}, srv.Register)
		done <- struct{}{}
	}()
	b.Cleanup(func() { cancel(); <-done; <-done })
	return &tcpMatch{addr: <-addrs, iss: iss}
}

func (m *tcpMatch) token(b *testing.B, who string) string {
	var tok string
	var err error
	if who == "lobby" {
		tok, _, err = m.iss.IssueService("lobby", time.Hour)
	} else {
		tok, _, err = m.iss.IssuePlayer(who, who, true, time.Hour)
	}
	if err != nil {
		b.Fatal(err)
	}
	return tok
}

// plyPath plays a ply for one seat of one match and returns once the
// ply's event is back.
type plyPath interface {
	ply(ctx context.Context, n int32, notation string) error
	close()
}

// shuttle is the ply for number n: both pawns step forward and back, so
// that a match never ends (Quoridor standard has no ply limit).
func shuttle(n int32) string {
	return [4]string{"e2", "e8", "e1", "e9"}[(n-1)%4]
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchPath is one way to play a ply.
type benchPath struct {
	name string
	open func(b *testing.B, id, who string) plyPath
}

// benchSetup starts a match instance and returns every path to it and a
// function that creates a match.
func benchSetup(b *testing.B) ([]benchPath, func() string) {
	m := startTCPMatch(b)
	conn, err := grpc.NewClient(m.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	client := matchv1.NewMatchServiceClient(conn)
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	base := "http://" + m.addr
	paths := []benchPath{
		{"grpc-play", func(b *testing.B, id, who string) plyPath { return openPlayPath(b, client, m.token(b, who), id) }},
		{"grpc-unary", func(b *testing.B, id, who string) plyPath {
			return openGRPCUnary(b, client, m.token(b, who), id)
		}},
		{"grpc-web", func(b *testing.B, id, who string) plyPath {
			return openWebUnary(b, hc, base, m.token(b, who), id, connect.WithGRPCWeb())
		}},
		{"connect", func(b *testing.B, id, who string) plyPath { return openWebUnary(b, hc, base, m.token(b, who), id) }},
		{"connect-json", func(b *testing.B, id, who string) plyPath {
			return openWebUnary(b, hc, base, m.token(b, who), id, connect.WithProtoJSON())
		}},
	}
	lobby := auth.WithToken(context.Background(), m.token(b, "lobby"))
	create := func() string {
		resp, err := client.CreateMatch(lobby, &matchv1.CreateMatchRequest{
			RequestId: fmt.Sprintf("bench-%x", rand.Uint64()), Game: gamev1.Game_GAME_QUORIDOR,
			First: playerSeat("alice"), Second: playerSeat("bob"),
		})
		if err != nil {
			b.Fatal(err)
		}
		return resp.GetMatchId()
	}
	return paths, create
}

// seatsOn plays one match after another on one path, a new match every
// perMatch plies (keeping the state small).
type seatsOn struct {
	b      *testing.B
	p      benchPath
	create func() string
	seats  [2]plyPath
	n      int32
}

const perMatch = 200

// prepare opens a new match when the current one has had its plies.
func (s *seatsOn) prepare() {
	if s.seats[0] != nil && s.n < perMatch {
		return
	}
	s.close()
	id := s.create()
	s.seats = [2]plyPath{s.p.open(s.b, id, "alice"), s.p.open(s.b, id, "bob")}
	s.n = 0
}

func (s *seatsOn) ply() {
	s.n++
	if err := s.seats[(s.n-1)%2].ply(context.Background(), s.n, shuttle(s.n)); err != nil {
		s.b.Fatalf("%s ply %d: %v", s.p.name, s.n, err)
	}
}

func (s *seatsOn) close() {
	for _, p := range s.seats {
		if p != nil {
			p.close()
		}
	}
}

// BenchmarkPlyRoundTrip times each path on its own, with the process's CPU
// time per ply.
func BenchmarkPlyRoundTrip(b *testing.B) {
	paths, create := benchSetup(b)
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			s := &seatsOn{b: b, p: p, create: create}
			defer s.close()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if s.seats[0] == nil || s.n == perMatch {
					b.StopTimer()
					s.prepare()
					b.StartTimer()
				}
				s.ply()
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/ply")
		})
	}
}

// BenchmarkPlyRoundTripInterleaved plays one ply on every path in turn
// each op, so that a loaded machine slows them alike, and reports each
// path's mean round trip and its ratio to native gRPC's unary SubmitPly
// ("x-grpc-unary") and to the Play stream ("x-grpc-play").
func BenchmarkPlyRoundTripInterleaved(b *testing.B) {
	paths, create := benchSetup(b)
	seats := make([]*seatsOn, len(paths))
	for i, p := range paths {
		seats[i] = &seatsOn{b: b, p: p, create: create}
		defer seats[i].close()
	}
	total := make([]time.Duration, len(paths))
	b.ResetTimer()
	for range b.N {
		for i, s := range seats {
			s.prepare()
			t0 := time.Now()
			s.ply()
			total[i] += time.Since(t0)
		}
	}
	b.StopTimer()
	us := func(i int) float64 { return float64(total[i].Microseconds()) / float64(b.N) }
	for i, p := range paths {
		b.ReportMetric(us(i), p.name+"-us/ply")
		if i >= 2 {
			b.ReportMetric(us(i)/us(1), p.name+"-x-grpc-unary")
			b.ReportMetric(us(i)/us(0), p.name+"-x-grpc-play")
		}
	}
}

// playPath is a seat's Play stream.
type playPath struct {
	stream grpc.BidiStreamingClient[matchv1.PlayRequest, matchv1.PlayResponse]
	cancel func()
	plies  chan int32
	errs   chan error
}

func openPlayPath(b *testing.B, c matchv1.MatchServiceClient, tok, id string) plyPath {
	ctx, cancel := context.WithCancel(auth.WithToken(context.Background(), tok))
	st, err := c.Play(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: id}}}); err != nil {
		b.Fatal(err)
	}
	p := &playPath{stream: st, cancel: cancel, plies: make(chan int32, 1024), errs: make(chan error, 1)}
	go func() {
		for {
			m, err := st.Recv()
			if err != nil {
				p.errs <- err
				return
			}
			if r := m.GetPlyRejected(); r != nil {
				p.errs <- fmt.Errorf("rejected: %v", r)
				return
			}
			if n := m.GetEvent().GetPlyPlayed().GetPly().GetNumber(); n != 0 {
				p.plies <- n
			}
		}
	}()
	return p
}

func (p *playPath) ply(_ context.Context, n int32, notation string) error {
	if err := p.stream.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: notation}}}); err != nil {
		return err
	}
	for {
		select {
		case got := <-p.plies:
			if got == n {
				return nil
			}
		case err := <-p.errs:
			return err
		}
	}
}

func (p *playPath) close() { p.cancel() }

// unaryPath is a seat's Follow stream (read and dropped, as a browser
// keeps it open) and its SubmitPly calls.
type unaryPath struct {
	submit func(ctx context.Context, n int32, notation string) (*matchv1.SubmitPlyResponse, error)
	cancel func()
}

func (u *unaryPath) ply(ctx context.Context, n int32, notation string) error {
	resp, err := u.submit(ctx, n, notation)
	if err != nil {
		return err
	}
	if got := resp.GetEvent().GetPlyPlayed().GetPly().GetNumber(); got != n {
		return fmt.Errorf("event of ply %d, want %d", got, n)
	}
	return nil
}

func (u *unaryPath) close() { u.cancel() }

func openGRPCUnary(b *testing.B, c matchv1.MatchServiceClient, tok, id string) plyPath {
	ctx, cancel := context.WithCancel(auth.WithToken(context.Background(), tok))
	st, err := c.Follow(ctx, &matchv1.FollowRequest{MatchId: id})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Recv(); err != nil { // the snapshot: the seat is connected
		b.Fatal(err)
	}
	go func() {
		for {
			if _, err := st.Recv(); err != nil {
				return
			}
		}
	}()
	return &unaryPath{cancel: cancel, submit: func(_ context.Context, n int32, notation string) (*matchv1.SubmitPlyResponse, error) {
		return c.SubmitPly(ctx, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: notation})
	}}
}

func openWebUnary(b *testing.B, hc *http.Client, base, tok, id string, opts ...connect.ClientOption) plyPath {
	follow := connect.NewClient[matchv1.FollowRequest, matchv1.FollowResponse](hc, base+matchv1.MatchService_Follow_FullMethodName, opts...)
	submit := connect.NewClient[matchv1.SubmitPlyRequest, matchv1.SubmitPlyResponse](hc, base+matchv1.MatchService_SubmitPly_FullMethodName, opts...)
	ctx, cancel := context.WithCancel(context.Background())
	req := connect.NewRequest(&matchv1.FollowRequest{MatchId: id})
	req.Header().Set("Authorization", "Bearer "+tok)
	st, err := follow.CallServerStream(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if !st.Receive() {
		b.Fatalf("follow: %v", st.Err())
	}
	go func() { // read and drop the events, until the seat is closed
		for st.Receive() {
		}
		_ = st.Close()
	}()
	return &unaryPath{cancel: cancel, submit: func(ctx context.Context, n int32, notation string) (*matchv1.SubmitPlyResponse, error) {
		r := connect.NewRequest(&matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: notation})
		r.Header().Set("Authorization", "Bearer "+tok)
		resp, err := submit.CallUnary(ctx, r)
		if err != nil {
			return nil, err
		}
		return resp.Msg, nil
	}}
}
