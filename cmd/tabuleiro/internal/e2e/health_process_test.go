package e2e

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/testenv"
)

// redisAt runs redis-server on addr and waits until it answers PING.
func redisAt(ctx context.Context, t *testing.T, addr, dir string) *process {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	p := startProcess(t, "redis "+addr, "redis-server", []string{"PATH=" + os.Getenv("PATH")},
		"--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", dir)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	for rdb.Ping(ctx).Err() != nil {
		select {
		case <-p.done:
			t.Fatalf("redis-server on %s exited: %v\n%s", addr, p.err, p.out.Bytes())
		case <-ctx.Done():
			t.Fatalf("redis-server on %s never answered", addr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	return p
}

// waitHealth watches the server's overall health at addr until it reports
// want (a change is pushed by the Watch stream, not polled).
func waitHealth(ctx context.Context, t *testing.T, name, addr string, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	last := healthpb.HealthCheckResponse_UNKNOWN
	for err == nil {
		var r *healthpb.HealthCheckResponse
		if r, err = stream.Recv(); err == nil {
			if last = r.GetStatus(); last == want {
				return
			}
		}
	}
	t.Fatalf("%s at %s: health stayed %v, want %v: %v", name, addr, last, want, err)
}

// TestHealthFollowsRedis runs lobby and match as processes against a
// redis-server of the test's own, kills Redis, and expects both to report
// NOT_SERVING (so that Kubernetes and the edge stop sending them calls
// they would fail), then SERVING again once a new Redis answers on the
// same port.
func TestHealthFollowsRedis(t *testing.T) {
	t.Parallel()
	ctx := testenv.Context(t, context.Background())
	_, dbURL := testEnv(t)
	var bin string
	built := make(chan error, 1)
	go func() {
		var err error
		bin, err = binaries()
		built <- err
	}()
	redisAddr := testenv.FreeAddr(t)
	r1 := redisAt(ctx, t, redisAddr, t.TempDir())
	redisURL := "redis://" + redisAddr + "/0"
	dbURL = freshDatabase(ctx, t, dbURL)
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	k := auth.EncodeKey(key)
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	env := func(vars ...string) []string {
		return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, vars...)
	}
	lobbyAddr, matchAddr := testenv.FreeAddr(t), testenv.FreeAddr(t)
	lobby := startProcess(t, "lobby", filepath.Join(bin, "lobby"), env("LOBBY_GRPC_ADDR="+lobbyAddr, "LOBBY_TOKEN_KEY="+k,
		"LOBBY_REDIS_URL="+redisURL, "LOBBY_DATABASE_URL="+dbURL, "LOBBY_MATCH_ADDR="+matchAddr,
		"LOBBY_HEALTH_CHECK_INTERVAL=200ms"))
	lobby.waitServing(ctx, t, lobbyAddr)
	match := startProcess(t, "match", filepath.Join(bin, "match"), env("MATCH_GRPC_ADDR="+matchAddr, "MATCH_TOKEN_KEY="+k,
		"MATCH_REDIS_URL="+redisURL, "MATCH_DATABASE_URL="+dbURL, "MATCH_INSTANCE_ID=health",
		"MATCH_HEALTH_CHECK_INTERVAL=200ms"))
	match.waitServing(ctx, t, matchAddr)

	if err := r1.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-r1.done
	waitHealth(ctx, t, "lobby", lobbyAddr, healthpb.HealthCheckResponse_NOT_SERVING)
	waitHealth(ctx, t, "match", matchAddr, healthpb.HealthCheckResponse_NOT_SERVING)

	redisAt(ctx, t, redisAddr, t.TempDir())
	waitHealth(ctx, t, "lobby", lobbyAddr, healthpb.HealthCheckResponse_SERVING)
	waitHealth(ctx, t, "match", matchAddr, healthpb.HealthCheckResponse_SERVING)
	for _, p := range []*process{lobby, match} {
		select {
		case <-p.done:
			t.Fatalf("%s exited while Redis was down: %v", p.name, p.err)
		default:
		}
	}
}
