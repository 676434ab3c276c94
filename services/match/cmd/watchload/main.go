// Command watchload measures what idle spectators cost the match service.
// It starts one match instance as a child process (this command with
// -serve, on loopback gRPC against a real Redis, trusting 127.0.0.1 as
// its proxy), opens N Watch streams on one match whose players do not
// move, each as its own guest from one of N/per client addresses (in
// X-Forwarded-For, as behind the documented proxy), and reports:
//
//   - the instance's processor time over the idle period, as a share of
//     one core (from /proc/PID/stat);
//
//   - its resident memory before and after the streams opened, and the
//     difference per stream (from /proc/PID/status), split into the Go
//     runtime's memory classes (live heap objects, heap kept unused or
//     free, goroutine stacks; runtime/metrics after a few collections)
//     and goroutines per stream;
//
//   - an honest player's latency at p50 and p99, before the streams and
//     while they are open (and one more address holds its whole cap):
//     GetMatch calls, and ply round trips (a ply sent on one Play stream
//     until its event reaches the opponent's) of a game of their own.
//
//     go run ./cmd/watchload -redis redis://127.0.0.1:6379/0 -watchers 10000 -idle 30s
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/services/match/matchserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "watchload:", err)
		os.Exit(1)
	}
}

type flags struct {
	redisURL string
	watchers int
	perAddr  int
	conns    int
	idle     time.Duration
	probe    time.Duration
	serve    bool
	prefix   string
	key      string
	profile  string
}

func run(ctx context.Context) error {
	var f flags
	flag.StringVar(&f.redisURL, "redis", "redis://127.0.0.1:6379/0", "Redis URL")
	flag.IntVar(&f.watchers, "watchers", 10000, "idle Watch streams on the one match")
	flag.IntVar(&f.perAddr, "per-address", 100, "streams per client address (at most the instance's cap of 200)")
	flag.IntVar(&f.conns, "conns", 200, "client connections the streams are spread over (64 streams at most on one)")
	flag.DurationVar(&f.idle, "idle", 30*time.Second, "idle period over which the instance's processor time is measured")
	flag.DurationVar(&f.probe, "honest", 10*time.Second, "how long the honest player's latency is measured, before and with the streams")
	flag.BoolVar(&f.serve, "serve", false, "run the match instance (the child process)")
	flag.StringVar(&f.prefix, "prefix", "", "key prefix (-serve)")
	flag.StringVar(&f.key, "key", "", "token key (-serve)")
	flag.StringVar(&f.profile, "profile", "", "write the instance's processor profiles over the idle period (cpu-idle.pprof) and the honest player's measurement with the streams (cpu-honest.pprof), its heap and its goroutines, to this directory")
	flag.Parse()
	opt, err := redis.ParseURL(f.redisURL)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if f.serve {
		return serve(ctx, rdb, f)
	}
	return measure(ctx, rdb, f)
}

// serve runs the match instance until stdin closes (the parent's end).
func serve(ctx context.Context, rdb *redis.Client, f flags) error {
	key, err := auth.ParseKey(f.key)
	if err != nil {
		return err
	}
	ver, err := auth.NewVerifier(key)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the parent asks for the memory's classes; its end closes stdin
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Println(memClasses())
		}
		cancel()
	}()
	srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb}, matchserver.Config{
		KeyPrefix: f.prefix, InstanceID: "watchload",
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	fmt.Println(lis.Addr().String())
	if f.profile != "" {
		wg.Go(func() { profileOnSignals(ctx, f.profile) })
	}
	wg.Go(func() { _ = srv.Run(ctx) })
	err = grpcserve.Run(ctx, grpcserve.Options{Listener: lis, ShutdownTimeout: time.Second,
		Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})}, srv.Register)
	cancel()
	wg.Wait()
	return err
}

func measure(ctx context.Context, rdb *redis.Client, f flags) error {
	key, err := auth.GenerateKey()
	if err != nil {
		return err
	}
	iss, err := auth.NewIssuer(key)
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("watchload-%d:", time.Now().UnixNano())
	defer cleanup(rdb, prefix)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.CommandContext(ctx, self, "-serve", "-redis", f.redisURL, "-prefix", prefix, "-key", auth.EncodeKey(key), "-profile", f.profile)
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return err
	}
	defer func() {
		_ = stdin.Close()
		_ = child.Wait()
	}()
	out := bufio.NewReader(stdout)
	addr, err := out.ReadString('\n')
	if err != nil {
		return fmt.Errorf("the instance did not start: %w", err)
	}
	addr = strings.TrimSpace(addr)
	pid := child.Process.Pid

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dial := func() (*grpc.ClientConn, error) {
		return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	as := func(who, ip string) context.Context {
		tok, _, _ := iss.IssuePlayer(who, who, true, 2*time.Hour)
		c := auth.WithToken(ctx, tok)
		if ip != "" {
			c = metadata.AppendToOutgoingContext(c, "x-forwarded-for", ip)
		}
		return c
	}
	svcTok, _, _ := iss.IssueService("lobby", 2*time.Hour)
	mc, err := dial()
	if err != nil {
		return err
	}
	defer mc.Close()
	client := matchv1.NewMatchServiceClient(mc)
	create := func(a, b string) (string, error) {
		resp, err := client.CreateMatch(auth.WithToken(ctx, svcTok), &matchv1.CreateMatchRequest{
			RequestId: prefix + a + b, Game: gamev1.Game_GAME_QUORIDOR,
			First:  &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: a, DisplayName: a}}},
			Second: &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: b, DisplayName: b}}},
		})
		return resp.GetMatchId(), err
	}
	watched, err := create("star-a", "star-b")
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	honestMatch, err := create("honest-a", "honest-b")
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	// The watched game's players join and play a ply each, then think:
	// the game goes on, idle, for as long as the run.
	star := &honestPlayer{client: client, match: watched, a: as("star-a", "198.51.100.3"), b: as("star-b", "198.51.100.4")}
	if err := star.join(); err != nil {
		return err
	}
	for range 2 {
		if _, err := star.ply(); err != nil {
			return err
		}
	}
	honest := &honestPlayer{client: client, match: honestMatch, a: as("honest-a", "198.51.100.1"), b: as("honest-b", "198.51.100.2")}
	if err := honest.join(); err != nil {
		return err
	}
	time.Sleep(time.Second)
	before, err := honest.measure(ctx, f.probe)
	if err != nil {
		return err
	}
	idle0, _ := cpuTime(pid)
	time.Sleep(f.probe)
	idle1, _ := cpuTime(pid)
	rss0, _ := rss(pid)
	mem0, err := askMem(stdin, out)
	if err != nil {
		return err
	}

	conns := make([]*grpc.ClientConn, f.conns)
	for i := range conns {
		if conns[i], err = dial(); err != nil {
			return err
		}
		defer conns[i].Close()
	}
	t0 := time.Now()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed error
		ended  int   // streams that ended before the measurement did
		endErr error // the first one's error
		sem    = make(chan struct{}, 256)
	)
	open := func(i int, ip, who string) {
		defer wg.Done()
		sem <- struct{}{}
		defer func() { <-sem }()
		c := matchv1.NewMatchServiceClient(conns[i%len(conns)])
		w, err := c.Watch(as(who, ip), &matchv1.WatchRequest{MatchId: watched})
		if err == nil {
			_, err = w.Recv() // the snapshot
		}
		if err != nil {
			mu.Lock()
			failed = errors.Join(failed, fmt.Errorf("watch %d from %s: %w", i, ip, err))
			mu.Unlock()
			return
		}
		go func() { // hold it open: idle, nothing comes
			for {
				if _, err := w.Recv(); err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						ended++
						if endErr == nil {
							endErr = fmt.Errorf("stream %d from %s ended after %v: %w", i, ip, time.Since(t0).Round(time.Millisecond), err)
						}
						mu.Unlock()
					}
					return
				}
			}
		}()
	}
	for i := range f.watchers {
		wg.Add(1)
		go open(i, fmt.Sprintf("10.%d.%d.%d", 1+i/f.perAddr/65536%200, i/f.perAddr/256%256, i/f.perAddr%256), fmt.Sprintf("spectator-%d", i))
	}
	// One more address holds its whole cap (200), and is refused past it.
	refused := 0
	for i := range 210 {
		wg.Add(1)
		open(f.watchers+i, "203.0.113.99", fmt.Sprintf("holder-%d", i))
	}
	wg.Wait()
	if failed != nil {
		msgs := strings.Split(failed.Error(), "\n")
		for _, m := range msgs {
			if strings.Contains(m, "203.0.113.99") && strings.Contains(m, "ResourceExhausted") {
				refused++
			}
		}
		if refused != len(msgs) {
			return fmt.Errorf("%d streams failed: %s", len(msgs), strings.Join(msgs[:min(5, len(msgs))], "; "))
		}
	}
	opened := time.Since(t0)
	total := f.watchers + 210 - refused
	time.Sleep(3 * time.Second) // settle: the openings' garbage collected
	rss1, _ := rss(pid)
	mem1, err := askMem(stdin, out)
	if err != nil {
		return err
	}
	cpu0, err := cpuTime(pid)
	if err != nil {
		return err
	}
	if f.profile != "" {
		_ = child.Process.Signal(syscall.SIGUSR1)
	}
	w0 := time.Now()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(f.idle):
	}
	cpu1, _ := cpuTime(pid)
	if f.profile != "" {
		_ = child.Process.Signal(syscall.SIGUSR2)
	}
	wall := time.Since(w0)
	rss2, _ := rss(pid)
	if f.profile != "" {
		_ = child.Process.Signal(syscall.SIGUSR1)
	}
	with, err := honest.measure(ctx, f.probe)
	if err != nil {
		return err
	}
	if f.profile != "" {
		_ = child.Process.Signal(syscall.SIGUSR2)
	}
	mu.Lock()
	if ended > 0 {
		defer mu.Unlock()
		return fmt.Errorf("%d streams ended during the measurement; the first: %w", ended, endErr)
	}
	mu.Unlock()

	fmt.Printf("streams open: %d Watch on one match (%d addresses of %d, and 203.0.113.99 holding its cap: %d refused past it), opened in %v\n",
		total, (f.watchers+f.perAddr-1)/f.perAddr, f.perAddr, refused, opened.Round(time.Millisecond))
	fmt.Printf("idle processor time: %v over %v = %.2f%% of a core (with no stream: %.2f%%)\n", cpu1-cpu0, wall.Round(time.Millisecond),
		100*float64(cpu1-cpu0)/float64(wall), 100*float64(idle1-idle0)/float64(f.probe))
	// After the idle period the runtime's scavenger has returned most of
	// what the openings freed (its madvise calls are most of the idle
	// processor time of the first seconds: -profile shows them).
	fmt.Printf("resident memory: %.1f MB before the streams, %.1f MB with them: %.1f KB a stream; %.1f MB after the idle period: %.1f KB a stream\n",
		mb(rss0), mb(rss1), float64(rss1-rss0)/1024/float64(total), mb(rss2), float64(rss2-rss0)/1024/float64(total))
	fmt.Printf("of which, a stream: %s\n", perStream(mem0, mem1, total))
	fmt.Printf("honest player before: GetMatch p50 %v p99 %v; ply round trip p50 %v p99 %v (%d calls, %d plies)\n",
		before.get.q(0.5), before.get.q(0.99), before.ply.q(0.5), before.ply.q(0.99), len(before.get), len(before.ply))
	fmt.Printf("honest player with the streams: GetMatch p50 %v p99 %v; ply round trip p50 %v p99 %v (%d calls, %d plies)\n",
		with.get.q(0.5), with.get.q(0.99), with.ply.q(0.5), with.ply.q(0.99), len(with.get), len(with.ply))
	return nil
}

type durations []time.Duration

func (d durations) q(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))].Round(10 * time.Microsecond)
}

// honestPlayer plays its own game and looks at it, at a person's pace.
type honestPlayer struct {
	client matchv1.MatchServiceClient
	match  string
	a, b   context.Context //nolint:containedctx // each seat's credentials
	s      [2]grpc.BidiStreamingClient[matchv1.PlayRequest, matchv1.PlayResponse]
	n      int
}

func (h *honestPlayer) join() error {
	for i, ctx := range []context.Context{h.a, h.b} {
		s, err := h.client.Play(ctx)
		if err != nil {
			return err
		}
		if err := s.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: h.match}}}); err != nil {
			return err
		}
		if _, err := s.Recv(); err != nil {
			return err
		}
		h.s[i] = s
	}
	return nil
}

type latencies struct{ get, ply durations }

// measure makes a GetMatch call and a ply every 100 ms for d.
func (h *honestPlayer) measure(ctx context.Context, d time.Duration) (latencies, error) {
	var l latencies
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for end := time.Now().Add(d); time.Now().Before(end); {
		select {
		case <-ctx.Done():
			return l, ctx.Err()
		case <-tick.C:
		}
		t := time.Now()
		if _, err := h.client.GetMatch(h.a, &matchv1.GetMatchRequest{MatchId: h.match}); err != nil {
			return l, fmt.Errorf("honest GetMatch: %w", err)
		}
		l.get = append(l.get, time.Since(t))
		rtt, err := h.ply()
		if err != nil {
			return l, err
		}
		l.ply = append(l.ply, rtt)
	}
	return l, nil
}

// ply plays the next ply (the pawns step back and forth) and returns its
// round trip: from the mover's send to the opponent's receipt.
func (h *honestPlayer) ply() (time.Duration, error) {
	moves := [2][2]string{{"e2", "e1"}, {"e8", "e9"}}
	h.n++
	mover := (h.n - 1) % 2
	t := time.Now()
	if err := h.s[mover].Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{
		PlyNumber: int32(h.n), Notation: moves[mover][((h.n-1)/2)%2],
	}}}); err != nil {
		return 0, err
	}
	if err := await(h.s[1-mover], h.n); err != nil {
		return 0, err
	}
	rtt := time.Since(t)
	return rtt, await(h.s[mover], h.n)
}

func await(s grpc.BidiStreamingClient[matchv1.PlayRequest, matchv1.PlayResponse], n int) error {
	for {
		m, err := s.Recv()
		if err != nil {
			return err
		}
		if r := m.GetPlyRejected(); r != nil {
			return fmt.Errorf("ply %d rejected: %s", n, r.GetReason())
		}
		if m.GetEvent().GetPlyPlayed().GetPly().GetNumber() == int32(n) {
			return nil
		}
	}
}

// profileOnSignals profiles the processor from SIGUSR1 to SIGUSR2, then
// writes the heap and the goroutines, into dir.
func profileOnSignals(ctx context.Context, dir string) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sig)
	// The first profile is the idle period's, the second the honest
	// player's while the streams are open.
	name := "cpu-idle.pprof"
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-sig:
			if s == syscall.SIGUSR1 {
				if f, err := os.Create(filepath.Join(dir, name)); err == nil {
					_ = pprof.StartCPUProfile(f)
				}
				name = "cpu-honest.pprof"
				continue
			}
			pprof.StopCPUProfile()
			for _, name := range []string{"heap", "goroutine"} {
				if f, err := os.Create(filepath.Join(dir, name+".pprof")); err == nil {
					_ = pprof.Lookup(name).WriteTo(f, 0)
					_ = f.Close()
				}
			}
			fmt.Fprintln(os.Stderr, "goroutines:", runtime.NumGoroutine())
		}
	}
}

// memNames are the instance's memory classes (runtime/metrics) that
// watchload reports, and the goroutines.
var memNames = []struct{ name, metric string }{
	{"heap objects", "/memory/classes/heap/objects:bytes"},
	{"heap unused", "/memory/classes/heap/unused:bytes"},
	{"heap free", "/memory/classes/heap/free:bytes"},
	{"stacks", "/memory/classes/heap/stacks:bytes"},
	{"os stacks", "/memory/classes/os-stacks:bytes"},
	{"runtime metadata", "/memory/classes/metadata/other:bytes"},
	{"spans", "/memory/classes/metadata/mspan/inuse:bytes"},
	{"goroutines", "/sched/goroutines:goroutines"},
}

// memClasses is the instance's answer to askMem: after a few
// collections (each may shrink the parked goroutines' stacks), the value
// of each of memNames, separated by spaces.
func memClasses() string {
	for range 4 {
		runtime.GC()
	}
	samples := make([]metrics.Sample, len(memNames))
	for i, m := range memNames {
		samples[i].Name = m.metric
	}
	metrics.Read(samples)
	vals := make([]string, len(samples))
	for i, s := range samples {
		vals[i] = strconv.FormatUint(s.Value.Uint64(), 10)
	}
	return strings.Join(vals, " ")
}

// askMem asks the instance for its memory classes (a line on its stdin,
// the answer a line on its stdout).
func askMem(stdin io.Writer, out *bufio.Reader) ([]int64, error) {
	if _, err := io.WriteString(stdin, "mem\n"); err != nil {
		return nil, err
	}
	line, err := out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("the instance's memory: %w", err)
	}
	var vals []int64
	for f := range strings.FieldsSeq(line) {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("the instance's memory %q: %w", line, err)
		}
		vals = append(vals, v)
	}
	if len(vals) != len(memNames) {
		return nil, fmt.Errorf("the instance's memory %q: want %d values", line, len(memNames))
	}
	return vals, nil
}

// perStream is what the streams added to each memory class, divided by
// their number (the goroutines as they are, bytes in KB).
func perStream(before, after []int64, n int) string {
	parts := make([]string, len(memNames))
	for i, m := range memNames {
		d := float64(after[i]-before[i]) / float64(n)
		if strings.HasSuffix(m.metric, ":goroutines") {
			parts[i] = fmt.Sprintf("%s %.2f", m.name, d)
		} else {
			parts[i] = fmt.Sprintf("%s %.1f KB", m.name, d/1024)
		}
	}
	return strings.Join(parts, ", ")
}

// cpuTime is the process's user and system time (/proc/PID/stat, in
// clock ticks of 10 ms).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after the command's name
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// rss is the process's resident set in bytes (/proc/PID/status VmRSS).
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS")
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

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
