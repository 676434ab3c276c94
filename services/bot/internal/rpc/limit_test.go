package rpc

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/engine"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/bot/internal/limit"
)

// startLimited serves a BotService whose searches take slots of lim.
func startLimited(tb testing.TB, lim *limit.Limiter) botv1.BotServiceClient {
	tb.Helper()
	srv := grpcservetest.Start(tb, grpcserve.Options{}, func(s *grpc.Server) {
		botv1.RegisterBotServiceServer(s, NewLimitedServer(lim))
	})
	return botv1.NewBotServiceClient(srv.Conn)
}

// expectedLoad is a replica's expected load: the searches it runs at once
// by default (DefaultMaxSearches). The test and the benchmark send 4× that.
const expectedLoad = DefaultMaxSearches

// At 4× the expected load every request is answered (the surplus waits in
// the queue within its deadline) and never more than the slots search at
// once: the tables in memory are bounded by the slots, not by the load.
func TestFourTimesExpectedLoadIsQueuedNotRun(t *testing.T) {
	lim := limit.New(DefaultMaxSearches, DefaultMaxQueue)
	svc := startLimited(t, lim)
	p := position(t, engine.Quoridor, "", "", "e2", "e8", "e3", "e7")
	var wg sync.WaitGroup
	errs := make(chan error, 4*expectedLoad)
	for i := range 4 * expectedLoad {
		wg.Go(func() {
			_, err := svc.SelectPly(testenv.Context(t, t.Context()), &botv1.SelectPlyRequest{View: viewOf(p), Level: gamev1.BotLevel_BOT_LEVEL_EXPERT, BudgetMs: 20, Seed: uint64(i + 1)})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("SelectPly under 4× load: %v", err)
		}
	}
	s := lim.Stats()
	if s.Peak > DefaultMaxSearches || s.Peak < 1 {
		t.Fatalf("peak concurrent searches %d, want 1..%d", s.Peak, DefaultMaxSearches)
	}
	if s.Running != 0 || s.Waiting != 0 {
		t.Fatalf("after the burst: %+v", s)
	}
	t.Logf("32 requests, peak %d searches at once", s.Peak)
}

// With every slot taken and no room in the queue, a request is refused at
// once with RESOURCE_EXHAUSTED and a reason; so is one whose deadline
// cannot leave its budget after a wait.
func TestBusyIsResourceExhausted(t *testing.T) {
	for _, tt := range []struct {
		name        string
		queue       int
		budget      int64
		wantInError string
	}{
		{"queue full", 0, 20, "BOT_MAX_QUEUE"},
		{"deadline shorter than the wait", 4, 20_000, "within the caller's deadline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lim := limit.New(1, tt.queue)
			svc := startLimited(t, lim)
			p := position(t, engine.Quoridor, "", "")
			// A long search holds the one slot until the test cancels it.
			holdCtx, cancelHold := context.WithCancel(t.Context())
			held := make(chan error, 1)
			go func() {
				_, err := svc.SelectPly(holdCtx, &botv1.SelectPlyRequest{View: viewOf(p), Level: gamev1.BotLevel_BOT_LEVEL_EXPERT, BudgetMs: 60_000})
				held <- err
			}()
			for lim.Stats().Running != 1 {
				time.Sleep(time.Millisecond)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := svc.SelectPly(ctx, &botv1.SelectPlyRequest{View: viewOf(p), Level: gamev1.BotLevel_BOT_LEVEL_EASY, BudgetMs: tt.budget})
			if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("second request: %v, want RESOURCE_EXHAUSTED naming %q", err, tt.wantInError)
			}
			cancelHold()
			<-held
			for lim.Stats().Running != 0 {
				time.Sleep(time.Millisecond)
			}
			// The slot is free again: the same request now succeeds.
			if _, err := svc.SelectPly(t.Context(), &botv1.SelectPlyRequest{View: viewOf(p), Level: gamev1.BotLevel_BOT_LEVEL_EASY, BudgetMs: 20}); err != nil {
				t.Errorf("after the slot freed: %v", err)
			}
		})
	}
}

// The slots are shared by player_id: a second player's request is served
// before the first player's older ones when a slot frees, so that one
// player's many games cannot starve another's.
func TestSlotsAreSharedByPlayer(t *testing.T) {
	lim := limit.New(1, 16)
	svc := startLimited(t, lim)
	p := position(t, engine.Quoridor, "", "")
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	// Each request searches until the test ends: which one holds the slot
	// is read from the limiter.
	ask := func(ctx context.Context, player string) {
		wg.Go(func() {
			_, _ = svc.SelectPly(ctx, &botv1.SelectPlyRequest{View: viewOf(p), Level: gamev1.BotLevel_BOT_LEVEL_EXPERT, BudgetMs: 60_000, PlayerId: player})
		})
	}
	holdCtx, cancelHold := context.WithCancel(ctx)
	ask(holdCtx, "p_a")
	waitUntil(t, "a's search running", func() bool { return lim.Stats().Running == 1 })
	for i := range 4 {
		ask(ctx, "p_a")
		waitUntil(t, "a's requests waiting", func() bool { return lim.Stats().Waiting == i+1 })
	}
	ask(ctx, "p_b")
	waitUntil(t, "b's request waiting", func() bool { return lim.Stats().Waiting == 5 })
	cancelHold()
	waitUntil(t, "the freed slot taken", func() bool { s := lim.Stats(); return s.Running == 1 && s.Waiting == 4 })
	if a, b := lim.RunningOf("p_a"), lim.RunningOf("p_b"); b != 1 {
		t.Fatalf("after the slot freed p_a runs %d and p_b %d: want p_b's request served before p_a's 4 older ones (p_a just had the slot)", a, b)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := testenv.Deadline(t)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkFourTimesLoadRSS sends 4× a replica's expected load of expert
// searches (32 at once, the match service's 500 ms budget) at one server
// and reports the process's peak resident memory (VmHWM, the whole test
// process). BOT_BENCH_SLOTS sets the slots (default 8; a large value shows
// the unbounded server). Run each setting in its own process, since VmHWM
// is the process's peak:
//
//	GOMEMLIMIT=200MiB go test -run '^$' -bench FourTimesLoadRSS -benchtime 3x ./internal/rpc/
//	BOT_BENCH_SLOTS=1000 GOMEMLIMIT=off go test -run '^$' -bench FourTimesLoadRSS -benchtime 3x ./internal/rpc/
func BenchmarkFourTimesLoadRSS(b *testing.B) {
	slots := DefaultMaxSearches
	if s := os.Getenv("BOT_BENCH_SLOTS"); s != "" {
		slots, _ = strconv.Atoi(s)
	}
	lim := limit.New(slots, 4*expectedLoad)
	svc := startLimited(b, lim)
	req := &botv1.SelectPlyRequest{View: viewOf(midgame(b)), Level: gamev1.BotLevel_BOT_LEVEL_EXPERT, BudgetMs: 500}
	for b.Loop() {
		var wg sync.WaitGroup
		for range 4 * expectedLoad {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
				defer cancel()
				if _, err := svc.SelectPly(ctx, req); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(lim.Stats().Peak), "peak-searches")
	b.ReportMetric(float64(vmHWM(b))/(1<<20), "peak-RSS-MiB")
}

// vmHWM is the process's peak resident set size in bytes (Linux).
func vmHWM(tb testing.TB) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status:", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	tb.Skip("VmHWM not in /proc/self/status")
	return 0
}
