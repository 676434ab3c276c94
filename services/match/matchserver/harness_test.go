package matchserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/ratelimit"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/testenv"
	"tabuleiro.dev/services/match/matchserver"

	"database/sql"

	"github.com/redis/go-redis/v9"
)

// cluster is N match instances on one Redis and one Postgres schema,
// served over bufconn with the production interceptors.
type cluster struct {
	t      *testing.T
	rdb    *redis.Client
	prefix string
	db     *sql.DB
	iss    *auth.Issuer
	conns  []*grpc.ClientConn
	lis    []*grpcservetest.Listener
}

// newCluster's streams send no lag probes (so that tests read exactly the
// events they expect); newProbingCluster's send them every probeEvery.
func newCluster(t *testing.T, n int, cfg match.Config, bot match.Bot) *cluster {
	t.Helper()
	return newProbingCluster(t, n, cfg, bot, -1)
}

func newProbingCluster(t *testing.T, n int, cfg match.Config, bot match.Bot, probeEvery time.Duration) *cluster {
	t.Helper()
	return newClusterWith(t, n, cfg, bot, probeEvery, nil)
}

// newClusterWith's instances are configured by tune (nil: as
// newProbingCluster's).
func newClusterWith(t *testing.T, n int, cfg match.Config, bot match.Bot, probeEvery time.Duration, tune func(*matchserver.Config)) *cluster {
	t.Helper()
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	rdb, prefix := testenv.Redis(t)
	c := &cluster{t: t, rdb: rdb, prefix: prefix, db: testenv.Postgres(t), iss: iss}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := range n {
		sc := matchserver.Config{
			KeyPrefix: prefix, InstanceID: fmt.Sprintf("i%d", i), Match: cfg,
			Recorder:        recorder.Config{Block: 20 * time.Millisecond, MinIdle: 200 * time.Millisecond, Retry: 20 * time.Millisecond},
			FollowHeartbeat: 500 * time.Millisecond, ProbeEvery: probeEvery,
		}
		if tune != nil {
			tune(&sc)
		}
		srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb, DB: c.db, Bot: bot}, sc)
		wg.Go(func() {
			if err := srv.Run(ctx); err != nil && ctx.Err() == nil { // a test may end before start-up does
				t.Errorf("instance %d: %v", i, err)
			}
		})
		lis := grpcservetest.Listen(t)
		interceptor := auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})
		wg.Go(func() {
			_ = grpcserve.Run(ctx, grpcserve.Options{Listener: lis, Auth: interceptor, ShutdownTimeout: time.Second}, srv.Register)
		})
		conn, err := grpc.NewClient("passthrough:///bufnet", append(grpcservetest.RequireReasons(t),
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
			grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		c.conns = append(c.conns, conn)
		c.lis = append(c.lis, lis)
	}
	return c
}

// manyOpenings lets a test's player and address open hundreds of streams
// in a few seconds (a reconnection storm), past the default rates.
func manyOpenings(sc *matchserver.Config) {
	sc.Limits.StreamOpens = ratelimit.Rule{What: "match streams opened", Rate: 1000, Burst: 1000, Period: time.Second}
	sc.Limits.AddressStreamOpens = sc.Limits.StreamOpens
}

func (c *cluster) client(i int) matchv1.MatchServiceClient {
	return matchv1.NewMatchServiceClient(c.conns[i])
}

func (c *cluster) as(ctx context.Context, who string) context.Context {
	var tok string
	var err error
	if who == "lobby" {
		tok, _, err = c.iss.IssueService("lobby", time.Hour)
	} else {
		tok, _, err = c.iss.IssuePlayer(who, who, true, time.Hour)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return auth.WithToken(ctx, tok)
}

func (c *cluster) create(req *matchv1.CreateMatchRequest) string {
	c.t.Helper()
	if req.RequestId == "" {
		req.RequestId = fmt.Sprintf("req-%x", rand.Uint64())
	}
	if req.First == nil {
		req.First = playerSeat("alice")
	}
	if req.Second == nil {
		req.Second = playerSeat("bob")
	}
	resp, err := c.client(0).CreateMatch(c.as(c.t.Context(), "lobby"), req)
	if err != nil {
		c.t.Fatalf("create match: %v", err)
	}
	return resp.GetMatchId()
}

func playerSeat(id string) *matchv1.SeatSpec {
	return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: id, DisplayName: id}}}
}

// stream is one open Play or Watch stream, read by a goroutine into msgs.
type stream struct {
	t      *testing.T
	send   func(*matchv1.PlayRequest) error
	cancel func()
	msgs   chan any // *matchv1.PlayResponse or *matchv1.WatchResponse
	done   chan error
	all    []any
}

func (c *cluster) play(inst int, who, id string, lastSeq int64) *stream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(c.as(c.t.Context(), who))
	st, err := c.client(inst).Play(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: id, LastSeq: lastSeq}}}); err != nil {
		c.t.Fatal(err)
	}
	return c.receive(cancel, st.Send, func() (any, error) { return st.Recv() })
}

func (c *cluster) watch(inst int, id string) *stream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(c.as(c.t.Context(), "carol"))
	st, err := c.client(inst).Watch(ctx, &matchv1.WatchRequest{MatchId: id})
	if err != nil {
		c.t.Fatal(err)
	}
	return c.receive(cancel, nil, func() (any, error) { return st.Recv() })
}

// receive returns a stream whose messages recv receives, in the
// background until its first error; cancel ends it (and the test does).
func (c *cluster) receive(cancel func(), send func(*matchv1.PlayRequest) error, recv func() (any, error)) *stream {
	s := &stream{t: c.t, send: send, cancel: cancel, msgs: make(chan any, 10000), done: make(chan error, 1)}
	go func() {
		for {
			m, err := recv()
			if err != nil {
				s.done <- err
				close(s.msgs)
				return
			}
			s.msgs <- m
		}
	}()
	c.t.Cleanup(cancel)
	return s
}

// next returns the next message, failing after 10 s.
func (s *stream) next() any {
	s.t.Helper()
	select {
	case m, ok := <-s.msgs:
		if !ok {
			for _, m := range s.all {
				s.t.Logf("received %v", m)
			}
			s.t.Fatalf("stream ended: %v", <-s.done)
		}
		s.all = append(s.all, m)
		return m
	case <-time.After(time.Until(ptestenv.Deadline(s.t))):
		s.t.Fatal("no message when the test's time ran out")
		return nil
	}
}

// event returns the next message's event, or nil for other messages.
func event(m any) *matchv1.MatchEvent {
	switch m := m.(type) {
	case *matchv1.PlayResponse:
		return m.GetEvent()
	case *matchv1.WatchResponse:
		return m.GetEvent()
	}
	return nil
}

func snapshot(m any) *matchv1.Match {
	switch m := m.(type) {
	case *matchv1.PlayResponse:
		return m.GetSnapshot()
	case *matchv1.WatchResponse:
		return m.GetSnapshot()
	}
	return nil
}

// until reads messages until pred holds for one, and returns it.
func (s *stream) until(what string, pred func(any) bool) any {
	s.t.Helper()
	for {
		m := s.next()
		if pred(m) {
			return m
		}
	}
}

// ended waits for the game's end: a game_ended event, or a snapshot of a
// finished match for a stream that opened after the end.
func (s *stream) ended() *matchv1.GameEnded {
	s.t.Helper()
	m := s.until("game ended", func(m any) bool {
		return event(m).GetGameEnded() != nil || snapshot(m).GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED
	})
	if snap := snapshot(m); snap != nil {
		return &matchv1.GameEnded{Outcome: snap.GetOutcome(), Seed: snap.GetSeed(), Layout: snap.GetLayout()}
	}
	return event(m).GetGameEnded()
}

func (s *stream) submit(n int32, notation string) {
	s.t.Helper()
	if err := s.send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: notation}}}); err != nil {
		s.t.Fatal(err)
	}
}

func (s *stream) act(a *matchv1.PlayRequest) {
	s.t.Helper()
	if err := s.send(a); err != nil {
		s.t.Fatal(err)
	}
}
