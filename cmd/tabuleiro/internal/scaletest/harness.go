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

	"tabuleiro.dev/pkg/platform/auth"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"

	"tabuleiro.dev/pkg/platform/testenv"
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
	// RedisCluster, when above 0, runs Redis as a Redis Cluster of that
	// many primaries, each with one replica (Cluster.RedisNodes), the
	// services on its redis-cluster:// URL; Cluster.Redis is nil.
	RedisCluster int
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
	// RedisNodes is the Redis Cluster's nodes (Options.RedisCluster).
	RedisNodes []*Proc
	rdb        redis.UniversalClient

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
	} else if o.RedisCluster > 0 {
		c.startRedisCluster(o.RedisCluster)
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
		lobbyPort, matchPort = testenv.FreePort(t), testenv.FreePort(t)
	}
	for i := range o.Bots {
		// The bots log each call (DEBUG, off by default): the fault tests
		// read which replica answered SelectPly.
		p := c.proc(bins, "bot", i, base, "BOT_TOKEN_KEY="+k, "BOT_SHUTDOWN_TIMEOUT=5s", "BOT_LOG_LEVEL=DEBUG")
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
		c.EdgeAddr = fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
		c.EdgeMetricsAddr = fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
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
		Name: fmt.Sprintf("%s-%d", svc, i), Addr: fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(c.t)),
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
