// Package scaletest runs a Tabuleiro deployment as plain processes on
// loopback — one Redis, one PostgreSQL, two lobby, three match and two bot
// instances — for the fault tests and load figures of issue 10. Each
// service is its production binary, built once per test run; the lobby
// reaches the match instances, and the match instances the bots, through
// a small TCP balancer that plays the part of a Kubernetes Service (one
// backend per connection, round robin over the backends that accept).
package scaletest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	"tabuleiro.dev/pkg/platform/auth"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// Build compiles the lobby, match and bot binaries once per process (no
// -race: these are the deployed programs) and returns their directory.
func Build() (string, error) {
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "scaletest-bin-")
		if buildErr != nil {
			return
		}
		root, err := repoRoot()
		if err != nil {
			buildErr = err
			return
		}
		for _, svc := range []string{"lobby", "match", "bot"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, svc), "./services/"+svc+"/cmd/"+svc)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("build %s: %w\n%s", svc, err, out)
				return
			}
		}
	})
	return binDir, buildErr
}

// Cleanup removes the built binaries; TestMain calls it.
func Cleanup() {
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOWORK: %w", err)
	}
	w := strings.TrimSpace(string(out))
	if w == "" || w == "off" {
		return "", errors.New("scaletest needs the go.work workspace")
	}
	return filepath.Dir(w), nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Proc is one service process, which can be stopped and started again on
// the same address.
type Proc struct {
	Name string
	Addr string
	bin  string
	args []string
	env  []string
	log  string
	dir  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the last run's exit status, once done is closed
}

// Start starts the process (again).
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.Dir = p.env, f, f, p.dir
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() { // ends with the process, which Stop always reaps
		err := cmd.Wait()
		f.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	p.cmd, p.done = cmd, done
	return nil
}

// Signal sends sig and, with wait, waits up to timeout for the exit.
func (p *Proc) Signal(sig syscall.Signal, timeout time.Duration) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	default:
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not exit within %v of %v", p.Name, timeout, sig)
	}
}

// Kill is kill -9.
func (p *Proc) Kill() { _ = p.Signal(syscall.SIGKILL, 10*time.Second) }

// Term sends SIGTERM and waits for a graceful exit.
func (p *Proc) Term(timeout time.Duration) error { return p.Signal(syscall.SIGTERM, timeout) }

// Alive reports whether the process runs.
func (p *Proc) Alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// ExitStatus describes how the process last ended ("exit status 1",
// "signal: killed"), or says it runs or never started.
func (p *Proc) ExitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return "never started"
	}
	select {
	case <-p.done:
		if p.err == nil {
			return "exit status 0"
		}
		return p.err.Error()
	default:
		return "running"
	}
}

// Log returns the process's output so far.
func (p *Proc) Log() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// Options shape a cluster.
type Options struct {
	Lobbies, Matches, Bots int
	// MatchEnv adds MATCH_* variables (e.g. a short presence TTL).
	MatchEnv []string
	// LobbyEnv adds LOBBY_* variables (e.g. a long ticket TTL).
	LobbyEnv []string
	// RedisAppendOnly turns on append-only persistence.
	RedisAppendOnly bool
	// Sentinel runs Redis as a primary, one replica and a Sentinel
	// (pkg/platform/testenv.StartSentinelSet), the services on the
	// Sentinel URL; Cluster.Sentinel is the set and Cluster.Redis nil.
	Sentinel bool
	// Edge puts the edge (HAProxy with deploy/haproxy/haproxy.cfg) in
	// front of the lobby and match replicas: each replica of a service
	// listens on the service's one port on its own loopback address
	// (127.0.0.1, .2, ...), which a DNS stand-in names, as compose does.
	Edge bool
}

// Cluster is a running deployment.
type Cluster struct {
	t    testing.TB
	dir  string
	Key  []byte
	Opts Options

	Redis    *Proc
	RedisURL string
	Sentinel *ptestenv.SentinelSet // with Options.Sentinel
	rdb      *redis.Client

	PGData      string
	PGPort      int
	DatabaseURL string
	pgBin       string

	Lobby, Match, Bot      []*Proc
	matchLB, botLB         *Balancer
	LobbyAddrs, MatchAddrs []string

	// With Options.Edge: the edge, its clients' address and its metrics'.
	Edge                      *Proc
	EdgeAddr, EdgeMetricsAddr string
}

// Start starts a cluster and stops it when the test ends.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	bins, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, dir: t.TempDir(), Key: key, Opts: o}
	t.Cleanup(c.stop)
	if o.Sentinel {
		c.Sentinel = ptestenv.StartSentinelSet(t, 1)
		c.RedisURL = c.Sentinel.URL("")
	} else {
		c.startRedis()
	}
	c.startPostgres()

	c.botLB = NewBalancer(t)
	c.matchLB = NewBalancer(t)
	k := auth.EncodeKey(key)
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.dir}
	var lobbyPort, matchPort int
	var lobbyIPs, matchIPs []net.IP
	if o.Edge {
		lobbyPort, matchPort = FreePort(t), FreePort(t)
	}
	for i := range o.Bots {
		p := c.proc(bins, "bot", i, base, "BOT_TOKEN_KEY="+k, "BOT_SHUTDOWN_TIMEOUT=5s")
		p.env = append(p.env, "BOT_GRPC_ADDR="+p.Addr)
		c.Bot = append(c.Bot, p)
		c.botLB.Add(p.Addr)
	}
	for i := range o.Matches {
		p := c.proc(bins, "match", i, base, "MATCH_TOKEN_KEY="+k, "MATCH_REDIS_URL="+c.RedisURL,
			"MATCH_DATABASE_URL="+c.DatabaseURL, "MATCH_BOT_ADDR="+c.botLB.Addr(), "MATCH_INSTANCE_ID=match-"+strconv.Itoa(i),
			"MATCH_SHUTDOWN_TIMEOUT=10s")
		if o.Edge {
			ip := net.IPv4(127, 0, 0, byte(1+i))
			p.Addr = net.JoinHostPort(ip.String(), strconv.Itoa(matchPort))
			matchIPs = append(matchIPs, ip)
		}
		p.env = append(p.env, "MATCH_GRPC_ADDR="+p.Addr)
		p.env = append(p.env, o.MatchEnv...)
		c.Match = append(c.Match, p)
		c.matchLB.Add(p.Addr)
		c.MatchAddrs = append(c.MatchAddrs, p.Addr)
	}
	for i := range o.Lobbies {
		p := c.proc(bins, "lobby", i, base, "LOBBY_TOKEN_KEY="+k, "LOBBY_REDIS_URL="+c.RedisURL,
			"LOBBY_DATABASE_URL="+c.DatabaseURL, "LOBBY_MATCH_ADDR="+c.matchLB.Addr(), "LOBBY_SHUTDOWN_TIMEOUT=5s",
			"LOBBY_RATE_LIMITS_OFF=true") // every simulated player calls from loopback
		if o.Edge {
			ip := net.IPv4(127, 0, 0, byte(1+i))
			p.Addr = net.JoinHostPort(ip.String(), strconv.Itoa(lobbyPort))
			lobbyIPs = append(lobbyIPs, ip)
		}
		p.env = append(p.env, "LOBBY_GRPC_ADDR="+p.Addr)
		p.env = append(p.env, o.LobbyEnv...)
		c.Lobby = append(c.Lobby, p)
		c.LobbyAddrs = append(c.LobbyAddrs, p.Addr)
	}
	// The first lobby applies the migrations alone; the rest start together.
	all := append(append(append([]*Proc{}, c.Lobby...), c.Match...), c.Bot...)
	if err := c.Lobby[0].Start(); err != nil {
		t.Fatal(err)
	}
	c.WaitServing(c.Lobby[0])
	for _, p := range all[1:] {
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range all[1:] {
		c.WaitServing(p)
	}
	if o.Edge {
		dns := ServeDNS(t, map[string][]net.IP{"lobby": lobbyIPs, "match": matchIPs})
		c.EdgeAddr = fmt.Sprintf("127.0.0.1:%d", FreePort(t))
		c.EdgeMetricsAddr = fmt.Sprintf("127.0.0.1:%d", FreePort(t))
		c.Edge = NewEdge(t, c.dir, EdgeEnv{Bind: c.EdgeAddr, Metrics: c.EdgeMetricsAddr, DNS: dns,
			LobbyName: "lobby", LobbyPort: strconv.Itoa(lobbyPort), MatchName: "match", MatchPort: strconv.Itoa(matchPort)})
		if err := c.Edge.Start(); err != nil {
			t.Fatal(err)
		}
		if err := WaitEdgeBackends(c.Edge, c.EdgeMetricsAddr, map[string]int{"lobby": o.Lobbies, "match": o.Matches}, Deadline(t)); err != nil {
			t.Fatalf("%v\n%s", err, tail(c.Edge.Log(), 3000))
		}
	}
	return c
}

func (c *Cluster) proc(binDir, svc string, i int, base []string, env ...string) *Proc {
	return &Proc{
		Name: fmt.Sprintf("%s-%d", svc, i), Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(c.t)),
		bin: filepath.Join(binDir, svc), env: append(append([]string{}, base...), env...),
		log: filepath.Join(c.dir, fmt.Sprintf("%s-%d.log", svc, i)), dir: c.dir,
	}
}

// WaitServing waits until p's gRPC health says SERVING, failing the test
// with p's exit status and the end of its log if p exits first or the
// test's time runs out (Deadline): how long a busy machine takes to start
// it is no failure.
func (c *Cluster) WaitServing(p *Proc) {
	c.t.Helper()
	if err := waitServing(p, Deadline(c.t)); err != nil {
		c.t.Fatalf("%s: %v\n%s", p.Name, err, tail(p.Log(), 2000))
	}
}

func waitServing(p *Proc, deadline time.Time) error {
	conn, err := grpc.NewClient(p.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	var last error
	for time.Now().Before(deadline) {
		if !p.Alive() {
			return fmt.Errorf("exited before serving (%s)", p.ExitStatus())
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && r.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		last = err
		poll(50 * time.Millisecond)
	}
	return fmt.Errorf("not serving when the test's time ran out: %v", last)
}

// Deadline is when a test that waits for processes to come up, for
// pairings or for recordings gives up: shortly before the test binary's
// -timeout (so that it fails with its own message and the processes'
// logs rather than the binary's panic), or in 15 minutes without one.
func Deadline(t testing.TB) time.Time {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			return end.Add(-min(time.Until(end)/10, 30*time.Second))
		}
	}
	return time.Now().Add(15 * time.Minute)
}

// poll waits a little between two checks of a condition with a deadline.
func poll(d time.Duration) { <-time.After(d) }

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Restart starts p again and waits for it to serve.
func (c *Cluster) Restart(p *Proc) {
	c.t.Helper()
	if err := p.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.WaitServing(p)
}

// RDB is a client of the cluster's Redis.
func (c *Cluster) RDB() *redis.Client {
	if c.rdb == nil {
		opt, _ := redis.ParseURL(c.RedisURL)
		c.rdb = redis.NewClient(opt)
	}
	return c.rdb
}

func (c *Cluster) startRedis() {
	c.t.Helper()
	port := FreePort(c.t)
	dir := filepath.Join(c.dir, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--save", ""}
	if c.Opts.RedisAppendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	} else {
		args = append(args, "--appendonly", "no")
	}
	c.Redis = &Proc{Name: "redis", Addr: fmt.Sprintf("127.0.0.1:%d", port), bin: "redis-server", args: args,
		log: filepath.Join(c.dir, "redis.log"), dir: dir, env: []string{"PATH=" + os.Getenv("PATH")}}
	c.RedisURL = fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	c.StartRedis()
}

// StartRedis starts Redis (again) and waits for PONG.
func (c *Cluster) StartRedis() {
	c.t.Helper()
	if err := c.Redis.Start(); err != nil {
		c.t.Fatal(err)
	}
	deadline := Deadline(c.t)
	for time.Now().Before(deadline) {
		if !c.Redis.Alive() {
			c.t.Fatalf("redis exited before answering (%s)\n%s", c.Redis.ExitStatus(), tail(c.Redis.Log(), 2000))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.RDB().Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		poll(20 * time.Millisecond)
	}
	c.t.Fatalf("redis did not answer when the test's time ran out\n%s", tail(c.Redis.Log(), 2000))
}

func (c *Cluster) startPostgres() {
	c.t.Helper()
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(matches) == 0 {
		c.t.Fatal("PostgreSQL is not installed: run scripts/test.sh, which installs it")
	}
	c.pgBin = filepath.Dir(matches[len(matches)-1])
	dir, err := os.MkdirTemp("/tmp", "scaletest-pg-") // user postgres must reach it
	if err != nil {
		c.t.Fatal(err)
	}
	c.PGData = filepath.Join(dir, "data")
	c.t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	if out, err := exec.Command("install", "-d", "-o", "postgres", "-g", "postgres", "-m", "700", c.PGData).CombinedOutput(); err != nil {
		c.t.Fatalf("pg data dir: %v %s", err, out)
	}
	if out, err := c.asPostgres("initdb", "-D", c.PGData, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"); err != nil {
		c.t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.PGPort = FreePort(c.t)
	c.DatabaseURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.PGPort)
	c.StartPostgres()
}

func (c *Cluster) asPostgres(tool string, args ...string) ([]byte, error) {
	return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(c.pgBin, tool)}, args...)...).CombinedOutput()
}

// StartPostgres starts the cluster's PostgreSQL (again).
func (c *Cluster) StartPostgres() {
	c.t.Helper()
	out, err := c.asPostgres("pg_ctl", "-D", c.PGData, "-l", filepath.Join(c.PGData, "server.log"), "-w", "-t", "900", "start", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", c.PGPort, c.PGData))
	if err != nil {
		c.t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

// StopPostgres stops it (fast mode: connections are cut).
func (c *Cluster) StopPostgres() {
	c.t.Helper()
	if out, err := c.asPostgres("pg_ctl", "-D", c.PGData, "-m", "fast", "-w", "stop"); err != nil {
		c.t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

func (c *Cluster) stop() {
	procs := append(append(append([]*Proc{}, c.Lobby...), c.Match...), c.Bot...)
	if c.Edge != nil {
		procs = append(procs, c.Edge)
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(p.Kill)
	}
	wg.Wait()
	if c.rdb != nil {
		_ = c.rdb.Close()
	}
	if c.Redis != nil {
		c.Redis.Kill()
	}
	if c.PGData != "" {
		_, _ = c.asPostgres("pg_ctl", "-D", c.PGData, "-m", "immediate", "-w", "stop")
	}
	if c.t.Failed() {
		for _, p := range procs {
			c.t.Logf("--- %s log (tail)\n%s", p.Name, tail(p.Log(), 3000))
		}
	}
}

// Balancer is a TCP load balancer on loopback: each new connection goes to
// the next backend that accepts it, as a Kubernetes Service does. A
// connection to a backend that dies is closed, and the gRPC client's
// reconnection then lands on a live backend.
type Balancer struct {
	l        net.Listener
	mu       sync.Mutex
	backends []string
	next     int
	wg       sync.WaitGroup
	conns    map[net.Conn]struct{}
	waiters  []chan string // NextWrite's
}

// NextWrite returns a channel that receives the backend of the next
// client bytes written to a backend after the call (the next request's).
func (b *Balancer) NextWrite() <-chan string {
	ch := make(chan string, 1)
	b.mu.Lock()
	b.waiters = append(b.waiters, ch)
	b.mu.Unlock()
	return ch
}

// tracker tells NextWrite's waiters of its backend on every write.
type tracker struct {
	b       *Balancer
	backend string
	w       io.Writer
}

func (t tracker) Write(p []byte) (int, error) {
	t.b.mu.Lock()
	for _, ch := range t.b.waiters {
		ch <- t.backend
	}
	t.b.waiters = nil
	t.b.mu.Unlock()
	return t.w.Write(p)
}

// NewBalancer listens on a free loopback port until the test ends.
func NewBalancer(t testing.TB) *Balancer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &Balancer{l: l, conns: map[net.Conn]struct{}{}}
	b.wg.Go(b.serve)
	t.Cleanup(b.Close)
	return b
}

// Addr is the balancer's address.
func (b *Balancer) Addr() string { return b.l.Addr().String() }

// Add adds a backend.
func (b *Balancer) Add(addr string) {
	b.mu.Lock()
	b.backends = append(b.backends, addr)
	b.mu.Unlock()
}

// Close stops accepting and cuts every connection.
func (b *Balancer) Close() {
	_ = b.l.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *Balancer) serve() {
	for {
		c, err := b.l.Accept()
		if err != nil {
			return
		}
		b.wg.Go(func() { b.pipe(c) })
	}
}

func (b *Balancer) pipe(c net.Conn) {
	b.mu.Lock()
	backends := append([]string{}, b.backends...)
	start := b.next
	b.next++
	b.mu.Unlock()
	var (
		up      net.Conn
		backend string
	)
	for i := range backends {
		backend = backends[(start+i)%len(backends)]
		u, err := net.DialTimeout("tcp", backend, time.Second)
		if err == nil {
			up = u
			break
		}
	}
	if up == nil {
		_ = c.Close()
		return
	}
	b.mu.Lock()
	b.conns[c], b.conns[up] = struct{}{}, struct{}{}
	b.mu.Unlock()
	var wg sync.WaitGroup
	cp := func(dst io.Writer, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = c.Close()
		_ = up.Close()
	}
	wg.Go(func() { cp(tracker{b: b, backend: backend, w: up}, c) })
	wg.Go(func() { cp(c, up) })
	wg.Wait()
	b.mu.Lock()
	delete(b.conns, c)
	delete(b.conns, up)
	b.mu.Unlock()
}

// RSS is the process's resident memory in bytes (0 when not running).
func (p *Proc) RSS() int64 {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// Switches is the number of context switches (voluntary and not) of the
// process's live threads so far, from /proc/PID/task/*/status: how often
// its threads went to sleep and were woken, or were preempted.
func (p *Proc) Switches() int64 {
	pid := p.Pid()
	if pid == 0 {
		return 0
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var n int64
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && strings.HasSuffix(f[0], "ctxt_switches:") {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				n += v
			}
		}
	}
	return n
}

// Pid is the process id (0 when not running).
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// CPU returns the processor time (user and system) the process has used
// since it started, from /proc/PID/stat; 0 when it does not run.
func (p *Proc) CPU() time.Duration {
	pid := p.Pid()
	if pid == 0 {
		return 0
	}
	return load.ProcessCPU(strconv.Itoa(pid))
}

// SelfCPU returns the processor time this (test) process has used.
func SelfCPU() time.Duration { return load.ProcessCPU("self") }

// ClusterCPU is the processor time used by each kind of process.
type ClusterCPU struct{ Match, Lobby, Bot, Redis time.Duration }

func (c ClusterCPU) total() time.Duration { return c.Match + c.Lobby + c.Bot + c.Redis }

// CPU returns the processor time used so far by the running processes of
// each kind (a restarted process counts from its restart).
func (c *Cluster) CPU() ClusterCPU {
	var out ClusterCPU
	sum := func(ps []*Proc) (d time.Duration) {
		for _, p := range ps {
			d += p.CPU()
		}
		return d
	}
	out.Match, out.Lobby, out.Bot = sum(c.Match), sum(c.Lobby), sum(c.Bot)
	if c.Redis != nil {
		out.Redis = c.Redis.CPU()
	}
	return out
}
