// Command matchload measures the match service: it runs one instance
// in-process on loopback gRPC against a real Redis, plays N concurrent
// Quoridor games whose pawns step back and forth (so they never end), and
// reports plies per second and the ply round trip — from the mover's Send
// to the opponent's receipt of the ply_played event — at p50 and p99.
//
//	go run ./cmd/matchload -redis redis://127.0.0.1:6379/0 -games 100 -rate 1000 -duration 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/match/matchserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "matchload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	redisURL := flag.String("redis", "redis://127.0.0.1:6379/0", "Redis URL")
	games := flag.Int("games", 100, "concurrent games")
	rate := flag.Float64("rate", 0, "target plies per second over all games; 0 plays as fast as possible")
	duration := flag.Duration("duration", 10*time.Second, "measuring time")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measured period to this file")
	memProfile := flag.String("memprofile", "", "write the allocations of the run (pprof allocs: bytes and counts by call site) to this file")
	flag.Parse()

	opt, err := redis.ParseURL(*redisURL)
	if err != nil {
		return err
	}
	opt.PoolSize = 256
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	prefix := fmt.Sprintf("matchload-%d:", time.Now().UnixNano())
	defer cleanup(rdb, prefix)

	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	srvCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := matchserver.New(srvCtx, matchserver.Deps{Redis: rdb}, matchserver.Config{KeyPrefix: prefix, InstanceID: "load",
		// Every player is on this host: no cap or rate per address.
		MaxAddressStreams: -1, Limits: matchserver.Limits{AddressStreamOpens: ratelimit.Rule{What: "match streams opened", Rate: 1_000_000, Burst: 1_000_000, Period: time.Second}}})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = srv.Run(srvCtx) })
	wg.Go(func() {
		_ = grpcserve.Run(srvCtx, grpcserve.Options{Listener: lis, ShutdownTimeout: time.Second,
			Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})}, srv.Register)
	})
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	client := matchv1.NewMatchServiceClient(conn)
	tok := func(who string) context.Context {
		t, _, _ := iss.IssuePlayer(who, who, true, time.Hour)
		return auth.WithToken(srvCtx, t)
	}
	svcTok, _, _ := iss.IssueService("lobby", time.Hour)

	var (
		plies   atomic.Int64
		mu      sync.Mutex
		rtts    []time.Duration
		measure atomic.Bool
	)
	perGame := time.Duration(0)
	if *rate > 0 {
		perGame = time.Duration(float64(time.Second) * float64(*games) / *rate)
	}
	ready := sync.WaitGroup{}
	start := make(chan struct{})
	for g := range *games {
		a, b := fmt.Sprintf("a%d", g), fmt.Sprintf("b%d", g)
		resp, err := client.CreateMatch(auth.WithToken(srvCtx, svcTok), &matchv1.CreateMatchRequest{
			RequestId: fmt.Sprintf("load-%d", g), Game: gamev1.Game_GAME_QUORIDOR,
			First:  &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: a, DisplayName: a}}},
			Second: &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: b, DisplayName: b}}},
		})
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		var streams [2]grpc.BidiStreamingClient[matchv1.PlayRequest, matchv1.PlayResponse]
		for i, who := range []string{a, b} {
			s, err := client.Play(tok(who))
			if err != nil {
				return err
			}
			if err := s.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: resp.GetMatchId()}}}); err != nil {
				return err
			}
			if _, err := s.Recv(); err != nil { // the snapshot
				return err
			}
			streams[i] = s
		}
		ready.Add(1)
		wg.Go(func() {
			ready.Done()
			<-start
			// Stagger the games over one pace period, so that the load is
			// spread evenly instead of arriving in bursts.
			offset := time.Duration(0)
			if perGame > 0 {
				offset = perGame * time.Duration(g) / time.Duration(*games)
			}
			playGame(srvCtx, streams, perGame, offset, func(rtt time.Duration) {
				if measure.Load() {
					plies.Add(1)
					mu.Lock()
					rtts = append(rtts, rtt)
					mu.Unlock()
				}
			})
		})
	}
	ready.Wait()
	close(start)
	time.Sleep(time.Second) // warm-up, not measured
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	measure.Store(true)
	t0 := time.Now()
	time.Sleep(*duration)
	measure.Store(false)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		if err := writeAllocs(*memProfile); err != nil {
			return err
		}
	}
	elapsed := time.Since(t0)
	cancel()

	mu.Lock()
	defer mu.Unlock()
	if len(rtts) == 0 {
		return fmt.Errorf("no plies measured")
	}
	slices.Sort(rtts)
	q := func(p float64) time.Duration { return rtts[int(p*float64(len(rtts)-1))] }
	fmt.Printf("games %d, target rate %.0f plies/s, measured %v\n", *games, *rate, elapsed.Round(time.Millisecond))
	fmt.Printf("plies %d, %.0f plies/s\n", plies.Load(), float64(plies.Load())/elapsed.Seconds())
	fmt.Printf("round trip p50 %v p99 %v max %v\n", q(0.50), q(0.99), rtts[len(rtts)-1])
	return nil
}

// playGame alternates the two seats: the mover sends its ply and the
// opponent's stream times the ply_played event.
func playGame(ctx context.Context, s [2]grpc.BidiStreamingClient[matchv1.PlayRequest, matchv1.PlayResponse], pace, offset time.Duration, record func(time.Duration)) {
	moves := [2][2]string{{"e2", "e1"}, {"e8", "e9"}}
	next := time.Now().Add(offset)
	for n := 1; ctx.Err() == nil; n++ {
		mover := (n - 1) % 2
		if pace > 0 {
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
			}
			next = next.Add(pace)
		}
		sent := time.Now()
		notation := moves[mover][((n-1)/2)%2]
		if err := s[mover].Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: int32(n), Notation: notation}}}); err != nil {
			return
		}
		if !await(s[1-mover], n) {
			return
		}
		record(time.Since(sent))
		if !await(s[mover], n) { // the mover's own copy
			return
		}
	}
}

func await(s grpc.BidiStreamingClient[matchv1.PlayRequest, matchv1.PlayResponse], n int) bool {
	for {
		m, err := s.Recv()
		if err != nil {
			return false
		}
		if m.GetPlyRejected() != nil {
			fmt.Fprintln(os.Stderr, "rejected:", m.GetPlyRejected())
			return false
		}
		if m.GetEvent().GetPlyPlayed().GetPly().GetNumber() == int32(n) {
			return true
		}
	}
}

func cleanup(rdb *redis.Client, prefix string) {
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		rdb.Del(ctx, keys...)
	}
}

// writeAllocs writes the allocations sampled since the start (server and
// simulated clients alike: focus on the server's packages when reading it).
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
