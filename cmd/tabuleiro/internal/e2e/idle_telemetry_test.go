package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/pkg/platform/testenv"
)

// TestIdleStackExportsNoSpans runs the three services with the production
// sampler wrapper set to keep everything (always_on) and leaves them idle:
// the match sweeper's deadline and lease polls, the lobby's matchmaking
// waves and the ratings poll must record no span. The test waits until
// Redis has served many polls (INFO commandstats), not for a fixed time;
// then one real game must still be traced.
func TestIdleStackExportsNoSpans(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	reader, mp := meterProvider()
	_ = reader
	sampler, err := telemetry.Sampler(envconfig.Map(map[string]string{"OTEL_TRACES_SAMPLER": "always_on"}))
	if err != nil {
		t.Fatal(err)
	}
	tels := serviceTelemetry(t, mp, sdktrace.WithSyncer(spans), sdktrace.WithSampler(sampler))
	s := startStack(t, stackOptions{Telemetry: tels})
	redisURL, _ := testEnv(t)
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := testenv.Context(t, context.Background())
	calls := func(cmd string) int64 {
		info, err := rdb.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\n") {
			if rest, ok := strings.CutPrefix(line, "cmdstat_"+cmd+":calls="); ok {
				n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				return n
			}
		}
		return 0
	}
	// The sweeper polls with ZRANGE (BYSCORE), the matchmaker with SMEMBERS,
	// the recorder with XREADGROUP.
	polled := func(n int64) {
		t.Helper()
		z0, m0, x0 := calls("zrange"), calls("smembers"), calls("xreadgroup")
		for calls("zrange") < z0+n || calls("smembers") < m0+n || calls("xreadgroup") < x0+2 {
			select {
			case <-ctx.Done():
				t.Fatalf("the idle services never polled Redis %d times (zrange %d→%d, smembers %d→%d, xreadgroup %d→%d)", n, z0, calls("zrange"), m0, calls("smembers"), x0, calls("xreadgroup"))
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	// Start-up (connections, schema checks, the consumer group) is traced
	// once: leave it out.
	polled(10)
	spans.Reset()
	polled(40)
	// A pool's new connection (redis.dial) is not polling: the idle loops'
	// commands (sweeper, hub, recorder) overlap now and then, and the pool
	// opens a connection for one. Any other span is traced idle work.
	names, n, dials := map[string]int{}, 0, 0
	for _, sp := range spans.GetSpans() {
		if sp.Name == "redis.dial" {
			dials++
			continue
		}
		names[sp.Resource.String()+" "+sp.Name]++
		n++
	}
	if n > 0 || dials > 3 {
		t.Fatalf("an idle stack recorded %d spans: %v, and %d connections dialled (a pool that churns)", n, names, dials)
	}
	_, _ = s.playBotGame(ctx, t, s.client(t, s.lobbyAddr), s.client(t, s.matchAddr), 0)
	if len(spans.GetSpans()) == 0 {
		t.Fatal("a bot game recorded no span: the exporter does not work, so the idle check proves nothing")
	}
}
