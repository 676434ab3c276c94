package e2e

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"

	"tabuleiro.dev/pkg/platform/testenv"
)

// The few process helpers below follow scaletest's harness (which starts a
// whole cluster); this package needs one instance of each service.

// shared is the one build of the services for every test of the package
// (linking four binaries takes a while on a busy machine); TestMain
// removes it.
var shared struct {
	once sync.Once
	dir  string
	err  error
}

// binaries compiles the lobby, match and bot binaries (as deployed:
// no -race), once, and returns their directory.
func binaries() (string, error) {
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "tabuleiro-e2e-bin-")
		if shared.err == nil {
			shared.err = buildPackages(shared.dir, "./services/lobby/cmd/lobby", "./services/match/cmd/match",
				"./services/bot/cmd/bot")
		}
	})
	return shared.dir, shared.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// buildPackages compiles the workspace's main packages pkgs (paths from
// the workspace root) into dir.
func buildPackages(dir string, pkgs ...string) error {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return fmt.Errorf("go env GOWORK: %w", err)
	}
	work := strings.TrimSpace(string(out))
	if work == "" || work == "off" {
		return errors.New("building the services needs the go.work workspace")
	}
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = filepath.Dir(work)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

// process is a running program whose output is kept.
type process struct {
	name string
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{} // closed when it has exited
	err  error         // its exit status, once done
}

// startProcess starts bin with exactly env, killing it when the test ends
// (after printing its output if the test failed).
func startProcess(t *testing.T, name, bin string, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr, p.cmd.Dir = env, &p.out, &p.out, t.TempDir()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("--- %s output (tail)\n%s", name, tail(string(p.out.Bytes()), 3000))
		}
	})
	return p
}

// term sends SIGTERM and waits for the exit, returning its status (an
// error when ctx ended first and it had to be killed).
func (p *process) term(ctx context.Context) error { return p.stop(ctx, syscall.SIGTERM) }

// stop sends sig and waits for the exit, as term does.
func (p *process) stop(ctx context.Context, sig syscall.Signal) error {
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s had not exited after %v when the test's time ran out: %w", p.name, sig, ctx.Err())
	}
}

// exited describes how the process ended, or "still running".
func (p *process) exited() string {
	select {
	case <-p.done:
		if p.err == nil {
			return "exited with status 0"
		}
		return p.err.Error()
	default:
		return "still running"
	}
}

// testContext bounds a test that waits on processes and servers only by
// the test binary's own -timeout (less a margin, so that the test fails
// with its message and the processes' output rather than the binary's
// panic): how long a busy machine takes to build, start or answer is no
// failure; a hang is.
func testContext(t *testing.T) context.Context {
	ctx := context.Background()
	d, ok := t.Deadline()
	if !ok {
		return ctx
	}
	margin := min(time.Until(d)/10, 30*time.Second)
	ctx, cancel := context.WithDeadline(ctx, d.Add(-margin))
	t.Cleanup(cancel)
	return ctx
}

// waitServing waits until the gRPC health of the process at addr says
// SERVING (watching, not polling), failing the test with the process's
// exit status if it exits first (or if the test's time runs out); the end
// of its output follows.
func (p *process) waitServing(ctx context.Context, t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	for err == nil {
		var r *healthpb.HealthCheckResponse
		if r, err = stream.Recv(); err == nil && r.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
	}
	// The cleanup of startProcess prints the end of its output.
	t.Fatalf("%s at %s never served: %v (%s)", p.name, addr, err, p.exited())
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// startRedis runs a Redis of the test's own (the lobby binary has no key
// prefix setting, so it must not share the test Redis) and returns its
// URL once it answers.
func startRedis(ctx context.Context, t *testing.T) string {
	t.Helper()
	addr := testenv.FreeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	p := startProcess(t, "redis", "redis-server", []string{"PATH=" + os.Getenv("PATH")},
		"--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	// The services under test get generous timeouts: a busy machine may
	// take seconds to answer.
	u := "redis://" + addr + "/0?dial_timeout=60s&read_timeout=60s&write_timeout=60s"
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for rdb.Ping(ctx).Err() != nil {
		select {
		case <-p.done:
			t.Fatalf("redis-server exited before answering: %v\n%s", p.err, p.out.Bytes())
		case <-ctx.Done():
			t.Fatalf("redis-server at %s never answered (%s): %v\n%s", addr, p.exited(), ctx.Err(), tail(string(p.out.Bytes()), 3000))
		case <-tick.C:
		}
	}
	return u
}

// freshDatabase creates an empty database on the server of baseURL and
// returns its URL; it is dropped when the test ends.
func freshDatabase(ctx context.Context, t *testing.T, baseURL string) string {
	t.Helper()
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	name := "e2e_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), baseURL)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// services are lobby, match and bot running as processes.
type services struct {
	lobbyAddr, matchAddr, botAddr string
	lobby, match, bot             *process
	issuer                        *auth.Issuer
}

// startServices builds and starts bot, match and lobby with a token key of
// their own, the test's own Redis, a fresh database on
// TABULEIRO_TEST_DATABASE_URL and the extra environment otel (OTEL_*).
func startServices(ctx context.Context, t *testing.T, otel []string) *services {
	t.Helper()
	_, dbURL := testEnv(t)
	var bin string
	built := make(chan error, 1)
	go func() {
		var err error
		bin, err = binaries()
		built <- err
	}()
	redisURL := startRedis(ctx, t)
	dbURL = freshDatabase(ctx, t, dbURL)
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	iss, err := auth.NewIssuer(key)
	if err != nil {
		t.Fatal(err)
	}
	k := auth.EncodeKey(key)
	s := &services{lobbyAddr: testenv.FreeAddr(t), matchAddr: testenv.FreeAddr(t), botAddr: testenv.FreeAddr(t), issuer: iss}
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	env := func(vars ...string) []string {
		return append(append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, otel...), vars...)
	}
	s.bot = startProcess(t, "bot", filepath.Join(bin, "bot"), env("BOT_GRPC_ADDR="+s.botAddr, "BOT_TOKEN_KEY="+k,
		"BOT_SHUTDOWN_TIMEOUT=60s"))
	// The lobby applies the migrations before the match service does.
	s.lobby = startProcess(t, "lobby", filepath.Join(bin, "lobby"), env("LOBBY_GRPC_ADDR="+s.lobbyAddr, "LOBBY_TOKEN_KEY="+k,
		"LOBBY_REDIS_URL="+redisURL, "LOBBY_DATABASE_URL="+dbURL, "LOBBY_MATCH_ADDR="+s.matchAddr, "LOBBY_SHUTDOWN_TIMEOUT=60s",
		"LOBBY_RATE_LIMITS_OFF=true")) // the tests sign in many guests from loopback
	s.lobby.waitServing(ctx, t, s.lobbyAddr)
	s.match = startProcess(t, "match", filepath.Join(bin, "match"), env("MATCH_GRPC_ADDR="+s.matchAddr, "MATCH_TOKEN_KEY="+k,
		"MATCH_REDIS_URL="+redisURL, "MATCH_DATABASE_URL="+dbURL, "MATCH_BOT_ADDR="+s.botAddr, "MATCH_INSTANCE_ID=e2e",
		"MATCH_SHUTDOWN_TIMEOUT=60s"))
	s.match.waitServing(ctx, t, s.matchAddr)
	s.bot.waitServing(ctx, t, s.botAddr)
	s.waitLobbyReachesMatch(ctx, t)
	return s
}

// waitLobbyReachesMatch waits until a lobby call that needs the match
// service is answered, as a client retrying UNAVAILABLE would: the lobby
// started before the match service, and gRPC backs off between its
// connection attempts (a test's first PlayBot, right after the match
// service was up, once found the lobby still backing off).
func (s *services) waitLobbyReachesMatch(ctx context.Context, t *testing.T) {
	t.Helper()
	conn, err := grpc.NewClient(s.lobbyAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tok, _, err := s.issuer.IssuePlayer("p-ready", "ready", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	lobby := lobbyv1.NewLobbyServiceClient(conn)
	for {
		_, err := lobby.ListActiveMatches(auth.WithToken(ctx, tok), &lobbyv1.ListActiveMatchesRequest{})
		if status.Code(err) != codes.Unavailable {
			if err != nil {
				t.Fatalf("lobby's ListActiveMatches: %v", err)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the lobby never reached the match service: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM to lobby, match and bot together and checks that each
// exits cleanly (a graceful shutdown flushes the exporters).
func (s *services) stop(ctx context.Context, t *testing.T) {
	t.Helper()
	var wg sync.WaitGroup
	for _, p := range []*process{s.lobby, s.match, s.bot} {
		wg.Go(func() {
			if err := p.term(ctx); err != nil {
				t.Errorf("%s: exit after SIGTERM: %v", p.name, err)
			}
		})
	}
	wg.Wait()
}
