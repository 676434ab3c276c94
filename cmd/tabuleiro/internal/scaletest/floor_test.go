package scaletest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"tabuleiro.dev/pkg/platform/testenv"
)

var (
	floorPlayers  = flag.Int("floor.players", 1000, "BenchmarkFloor: simulated players (two a match)")
	floorThink    = flag.Duration("floor.think", 600*time.Millisecond, "BenchmarkFloor: each player's pause before a ply")
	floorDuration = flag.Duration("floor.duration", 20*time.Second, "BenchmarkFloor: time measured")
	floorRedis    = flag.Bool("floor.redis", true, "BenchmarkFloor: commit each ply to Redis and deliver it through Pub/Sub (false: deliver at once)")
	floorEvent    = flag.Int("floor.event", 400, "BenchmarkFloor: bytes of each event sent to a seat")
	floorServers  = flag.Int("floor.servers", 1, "BenchmarkFloor: server processes (a match's two seats on the same one, as with match affinity)")
)

// floorServeEnv makes the test binary the floor server (TestMain): the
// address to serve on, the Redis URL in floorRedisEnv ("" for none) and
// the event's size in floorEventEnv.
const (
	floorServeEnv = "TABULEIRO_FLOOR_SERVE"
	floorRedisEnv = "TABULEIRO_FLOOR_REDIS"
	floorEventEnv = "TABULEIRO_FLOOR_EVENT"
)

// BenchmarkFloor measures the least a ply can cost with the platform's
// architecture, none of its own work: a bare gRPC server in a process of
// its own holds each seat's bidirectional stream (the Play stream); a
// seat's message is committed to Redis by one script call (HSET of the
// state, RPUSH of the ply, PUBLISH of the event: what the match commit
// script does at the least), comes back on the instance's Pub/Sub
// connection, and goes to each seat's sender goroutine, which sends an
// event of -floor.event bytes. No rules, views, clocks, encoding or
// lobby. Its processor time per ply is a floor under BenchmarkCluster's
// match and Redis figures at the same load:
//
//	go test -run '^$' -bench Floor -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -floor.players 1000
//
// -floor.redis=false delivers each ply at once, without Redis: gRPC's
// share alone. -floor.servers 3 splits the matches over three server
// processes, each match on one (as the edge's match affinity does): what
// splitting the same load costs with none of the platform's work.
func BenchmarkFloor(b *testing.B) {
	dir := b.TempDir()
	var rproc *Proc
	rurl := ""
	if *floorRedis {
		port := testenv.FreePort(b)
		rproc = &Proc{Name: "redis", Addr: fmt.Sprintf("127.0.0.1:%d", port), bin: "redis-server",
			args: []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no"},
			log:  dir + "/redis.log", dir: dir, env: []string{"PATH=" + os.Getenv("PATH")}}
		if err := rproc.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(rproc.Kill)
		rurl = "redis://" + rproc.Addr + "/0"
	}
	var srvs []*Proc
	var cs [][]testgrpc.TestServiceClient // by server
	for i := range max(*floorServers, 1) {
		srv := &Proc{Name: "floor", Addr: fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(b)), bin: os.Args[0],
			log: fmt.Sprintf("%s/floor-%d.log", dir, i), dir: dir,
			env: []string{"PATH=" + os.Getenv("PATH"), floorRedisEnv + "=" + rurl, floorEventEnv + "=" + strconv.Itoa(*floorEvent)}}
		srv.env = append(srv.env, floorServeEnv+"="+srv.Addr)
		if err := srv.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(srv.Kill)
		srvs = append(srvs, srv)
		var to []testgrpc.TestServiceClient
		for range connsForFloor(*floorPlayers / max(*floorServers, 1)) {
			cc, err := grpc.NewClient(srv.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { cc.Close() })
			to = append(to, testgrpc.NewTestServiceClient(cc))
		}
		waitFloor(b, to[0])
		cs = append(cs, to)
	}
	serverCPU := func() (d time.Duration) {
		for _, p := range srvs {
			d += p.CPU()
		}
		return d
	}

	for b.Loop() {
		ctx, cancel := context.WithCancel(b.Context())
		var plies atomic.Int64
		var wg sync.WaitGroup
		for m := range *floorPlayers / 2 {
			wg.Go(func() { floorMatch(ctx, cs[m%len(cs)], m, &plies) })
		}
		time.Sleep(3 * time.Second) // every stream open and playing
		p0, cpu0 := plies.Load(), serverCPU()
		var r0 time.Duration
		if rproc != nil {
			r0 = rproc.CPU()
		}
		time.Sleep(*floorDuration)
		n, cpu := plies.Load()-p0, serverCPU()-cpu0
		var rcpu time.Duration
		if rproc != nil {
			rcpu = rproc.CPU() - r0
		}
		cancel()
		wg.Wait()
		if n == 0 {
			b.Fatal("no ply was played: see the floor logs in " + dir)
		}
		per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
		fmt.Fprintf(os.Stderr, "floor: %d servers, %d plies, %.0f plies/s; CPU per ply: servers %.3f ms, redis %.3f ms\n",
			len(srvs), n, float64(n)/floorDuration.Seconds(), per(cpu), per(rcpu))
		b.ReportMetric(float64(n)/floorDuration.Seconds(), "plies/s")
		b.ReportMetric(per(cpu), "server-cpu-ms/ply")
		b.ReportMetric(per(rcpu), "redis-cpu-ms/ply")
	}
}

// connsForFloor opens connections as the load tool does: 48 streams each.
func connsForFloor(players int) int { return max(4, (players+47)/48) }

func waitFloor(b *testing.B, c testgrpc.TestServiceClient) {
	for range 100 {
		ctx, cancel := context.WithTimeout(b.Context(), time.Second)
		_, err := c.EmptyCall(ctx, &testgrpc.Empty{})
		cancel()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("the floor server did not start")
}

// floorMatch plays match m: two seats' streams; the seat to move thinks,
// sends a ply and waits for its event on both streams, then the other
// moves.
func floorMatch(ctx context.Context, cs []testgrpc.TestServiceClient, m int, plies *atomic.Int64) {
	var seats [2]testgrpc.TestService_FullDuplexCallClient
	for i := range seats {
		s, err := cs[(2*m+i)%len(cs)].FullDuplexCall(ctx)
		if err != nil {
			return
		}
		// The first message names the match and the seat.
		if err := s.Send(floorMsg("m" + strconv.Itoa(m) + "/" + strconv.Itoa(i))); err != nil {
			return
		}
		seats[i] = s
	}
	rng := rand.New(rand.NewPCG(uint64(m), 1))
	for ply := 0; ; ply++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(*floorThink/2 + time.Duration(rng.Int64N(int64(*floorThink)))):
		}
		if err := seats[ply%2].Send(floorMsg(strconv.Itoa(ply))); err != nil {
			return
		}
		for _, s := range seats {
			if _, err := s.Recv(); err != nil {
				return
			}
		}
		plies.Add(1)
	}
}

func floorMsg(body string) *testgrpc.StreamingOutputCallRequest {
	return &testgrpc.StreamingOutputCallRequest{Payload: &testgrpc.Payload{Body: []byte(body)}}
}

// serveFloor is the floor server's process (TestMain).
func serveFloor(addr string) error {
	rurl := os.Getenv(floorRedisEnv)
	size, err := strconv.Atoi(os.Getenv(floorEventEnv))
	if err != nil {
		return fmt.Errorf("%s: %w", floorEventEnv, err)
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	f := &floorServer{matches: map[string]*floorGame{}, event: make([]byte, size)}
	if rurl != "" {
		opt, err := redis.ParseURL(rurl)
		if err != nil {
			return err
		}
		f.rdb = redis.NewClient(opt)
		f.ps = f.rdb.Subscribe(context.Background())
		go f.deliver()
	}
	s := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(s, f)
	return s.Serve(lis)
}

type floorServer struct {
	testgrpc.UnimplementedTestServiceServer
	rdb   *redis.Client
	ps    *redis.PubSub
	event []byte

	mu      sync.Mutex
	matches map[string]*floorGame
}

// floorGame is a match's seats: each seat's sender goroutine reads its
// channel.
type floorGame struct{ seats [2]chan []byte }

var floorCommit = redis.NewScript(`
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PUBLISH', KEYS[3], ARGV[2])
return 1`)

func (f *floorServer) EmptyCall(context.Context, *testgrpc.Empty) (*testgrpc.Empty, error) {
	return &testgrpc.Empty{}, nil
}

func (f *floorServer) game(id string) *floorGame {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.matches[id]
	if g == nil {
		g = &floorGame{seats: [2]chan []byte{make(chan []byte, 32), make(chan []byte, 32)}}
		f.matches[id] = g
		if f.ps != nil {
			_ = f.ps.Subscribe(context.Background(), "c:"+id)
		}
	}
	return g
}

// deliver hands each published event to its match's seats.
func (f *floorServer) deliver() {
	for m := range f.ps.Channel(redis.WithChannelSize(1024)) {
		f.mu.Lock()
		g := f.matches[strings.TrimPrefix(m.Channel, "c:")]
		f.mu.Unlock()
		if g != nil {
			for _, c := range g.seats {
				c <- []byte(m.Payload)
			}
		}
	}
}

func (f *floorServer) FullDuplexCall(s testgrpc.TestService_FullDuplexCallServer) error {
	first, err := s.Recv()
	if err != nil {
		return err
	}
	id, seat, _ := strings.Cut(string(first.GetPayload().GetBody()), "/")
	g := f.game(id)
	out := g.seats[0]
	if seat == "1" {
		out = g.seats[1]
	}
	ctx := s.Context()
	go func() { // the sender
		for {
			select {
			case <-ctx.Done():
				return
			case <-out:
				if s.Send(&testgrpc.StreamingOutputCallResponse{Payload: &testgrpc.Payload{Body: f.event}}) != nil {
					return
				}
			}
		}
	}()
	for {
		req, err := s.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		ply := req.GetPayload().GetBody()
		if f.rdb == nil {
			for _, c := range g.seats {
				c <- ply
			}
			continue
		}
		if err := floorCommit.Run(ctx, f.rdb, []string{"m:{" + id + "}", "m:{" + id + "}:p", "c:" + id},
			string(ply), f.event).Err(); err != nil {
			return err
		}
	}
}
