package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelSet is a Redis primary, its replicas and one Sentinel watching
// them, each a real redis-server (or redis-sentinel) process on a free
// loopback port, all killed when the test ends (their output is logged if
// it failed). The Sentinel's master name is "tabuleiro"; it declares the
// primary down after 1 s without an answer and fails over on its own
// (quorum 1). Replicas sync without the diskless delay (5 s by default).
type SentinelSet struct {
	t        testing.TB
	dir      string
	Sentinel string   // host:port of the Sentinel
	Replicas []string // host:port of the replicas started with the primary
	mu       sync.Mutex
	nodes    map[string]*redisProc // by host:port
}

type redisProc struct {
	name string
	cmd  *exec.Cmd
	out  *lockedBuilder
	done chan struct{}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sentinelBinary is redis-sentinel, or redis-server in sentinel mode.
func sentinelBinary(t testing.TB) (string, []string) {
	t.Helper()
	if p, err := exec.LookPath("redis-sentinel"); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, []string{"--sentinel"}
	}
	t.Fatal("neither redis-sentinel nor redis-server is installed: scripts/services.sh installs them")
	return "", nil
}

// StartSentinelSet starts a primary with replicas replicas (no
// persistence) and a Sentinel, and returns once every replica is in sync
// and the Sentinel names the primary.
func StartSentinelSet(t testing.TB, replicas int) *SentinelSet {
	t.Helper()
	s := &SentinelSet{t: t, dir: t.TempDir(), nodes: map[string]*redisProc{}}
	primary := FreeAddr(t)
	s.startNode(primary, "", false)
	for range replicas {
		addr := FreeAddr(t)
		s.startNode(addr, primary, false)
		s.Replicas = append(s.Replicas, addr)
	}
	for _, addr := range s.Replicas {
		s.WaitInSync(addr, primary, "replica "+addr)
	}
	sp := strconv.Itoa(FreePort(t))
	conf := filepath.Join(s.dir, "sentinel.conf")
	host, port, _ := net.SplitHostPort(primary)
	if err := os.WriteFile(conf, []byte("port "+sp+"\nbind 127.0.0.1\ndir "+s.dir+"\n"+
		"sentinel monitor tabuleiro "+host+" "+port+" 1\n"+
		"sentinel down-after-milliseconds tabuleiro 1000\n"+
		"sentinel failover-timeout tabuleiro 5000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, args := sentinelBinary(t)
	s.Sentinel = "127.0.0.1:" + sp
	s.start(s.Sentinel, "sentinel", bin, append([]string{conf}, args...)...)
	s.Eventually(30*time.Second, "the Sentinel names the primary", func() bool { return s.Primary() == primary })
	return s
}

// URL is the Sentinel URL of the set (redisconn.Open's form) with query
// (e.g. "dial_timeout=1s") appended.
func (s *SentinelSet) URL(query string) string {
	u := "redis://" + s.Sentinel + "/0?master_name=tabuleiro"
	if query != "" {
		u += "&" + query
	}
	return u
}

func (s *SentinelSet) startNode(addr, primaryOf string, neverPromote bool) {
	_, port, _ := net.SplitHostPort(addr)
	args := []string{"--port", port, "--bind", "127.0.0.1", "--dir", s.t.TempDir(), "--save", "", "--appendonly", "no",
		"--repl-diskless-sync-delay", "0"}
	if neverPromote {
		args = append(args, "--replica-priority", "0")
	}
	name := "primary " + addr
	if primaryOf != "" {
		h, p, _ := net.SplitHostPort(primaryOf)
		args = append(args, "--replicaof", h, p)
		name = "replica " + addr
	}
	s.start(addr, name, "redis-server", args...)
}

func (s *SentinelSet) start(addr, name, bin string, args ...string) {
	s.t.Helper()
	p := &redisProc{name: name, cmd: exec.Command(bin, args...), out: &lockedBuilder{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	s.mu.Lock()
	s.nodes[addr] = p
	s.mu.Unlock()
	s.t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if s.t.Failed() {
			s.t.Logf("--- %s (%s %v)\n%s", name, bin, args, tail(p.out.String(), 4000))
		}
	})
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Kill kills the process at addr with SIGKILL and waits for its exit.
func (s *SentinelSet) Kill(addr string) {
	s.mu.Lock()
	p := s.nodes[addr]
	s.mu.Unlock()
	if p == nil {
		s.t.Fatalf("no process at %s", addr)
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Signal sends sig to the process at addr (SIGSTOP freezes a server,
// SIGCONT resumes it).
func (s *SentinelSet) Signal(addr string, sig os.Signal) {
	s.mu.Lock()
	p := s.nodes[addr]
	s.mu.Unlock()
	if p == nil {
		s.t.Fatalf("no process at %s", addr)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("signal %v to %s: %v", sig, p.name, err)
	}
}

// RestartAsReplica starts a redis-server again at addr (empty: it had no
// persistence), a replica of the current primary, as an orchestrator that
// asks Sentinel does, and waits until it is in sync. It has
// replica-priority 0: Sentinel never promotes it. (Without that, a first
// run saw Sentinel, after a false "down" of the new primary on a loaded
// machine, promote the restarted replica before it had synced: every game
// was gone. deploy/README.md says so.)
func (s *SentinelSet) RestartAsReplica(addr string) {
	s.t.Helper()
	primary := s.Primary()
	if primary == "" || primary == addr {
		s.t.Fatalf("restart %s as a replica: the Sentinel names %q as the primary", addr, primary)
	}
	s.startNode(addr, primary, true)
	s.WaitInSync(addr, primary, "restarted replica "+addr)
}

// WaitInSync waits until the replica at addr reports its link to primary
// up, then until a key written on primary after that (testenv:in-sync)
// is on the replica. The link reported up is not enough: after a full
// sync the primary streams the writes made meanwhile only once the
// replica has acknowledged the snapshot (its first REPLCONF ACK, up to a
// second later), and a primary killed before that takes them with it (a
// first version of this wait lost 200 of 200 writes that way). A key
// written before the link is up may arrive in the snapshot instead.
func (s *SentinelSet) WaitInSync(addr, primary, what string) {
	s.t.Helper()
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	p := redis.NewClient(&redis.Options{Addr: primary, MaxRetries: -1})
	defer p.Close()
	s.Eventually(60*time.Second, what+" linked", func() bool {
		info, _ := c.Info(ctx, "replication").Result()
		return strings.Contains(info, "master_link_status:up")
	})
	mark := strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := p.Set(ctx, "testenv:in-sync", mark, 0).Err(); err != nil {
		s.t.Fatalf("write on the primary %s: %v", primary, err)
	}
	s.Eventually(60*time.Second, what+" in sync", func() bool {
		v, _ := c.Get(ctx, "testenv:in-sync").Result()
		return v == mark
	})
}

// Primary is the primary's host:port as the Sentinel names it now ("" if
// it does not answer).
func (s *SentinelSet) Primary() string {
	c := redis.NewSentinelClient(&redis.Options{Addr: s.Sentinel, MaxRetries: -1})
	defer c.Close()
	a, err := c.GetMasterAddrByName(context.Background(), "tabuleiro").Result()
	if err != nil || len(a) != 2 {
		return ""
	}
	return net.JoinHostPort(a[0], a[1])
}

// Role is the INFO replication role ("master", "slave") of the server at
// addr, or "" when it does not answer.
func (s *SentinelSet) Role(addr string) string {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	info, err := c.Info(context.Background(), "replication").Result()
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "role:"); ok {
			return v
		}
	}
	return ""
}

// WaitFailover waits until the Sentinel names a primary other than old and
// that server says it is a master; it returns the new primary.
func (s *SentinelSet) WaitFailover(old string) string {
	s.t.Helper()
	var now string
	s.Eventually(60*time.Second, "Sentinel promotes a replica", func() bool {
		now = s.Primary()
		return now != "" && now != old && s.Role(now) == "master"
	})
	return now
}

// Eventually polls cond every 20 ms until it holds, failing the test
// with what after within (a bound only for a hang: Sentinel's own
// timeouts are a few seconds).
func (s *SentinelSet) Eventually(within time.Duration, what string, cond func() bool) time.Duration {
	s.t.Helper()
	t0 := time.Now()
	for !cond() {
		if time.Since(t0) > within {
			s.t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(t0)
}
