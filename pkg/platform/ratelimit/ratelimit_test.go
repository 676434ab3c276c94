package ratelimit_test

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The burst passes, the next request is RESOURCE_EXHAUSTED with a retry
// delay, other keys are untouched, and a second limiter on the same Redis
// (another instance) sees the same count.
func TestAllowAcrossInstances(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	a, b := ratelimit.New(rdb, prefix), ratelimit.New(rdb, prefix)
	rule := ratelimit.Rule{What: "guest sign-ins", Rate: 30, Burst: 5, Period: time.Hour}
	ctx := t.Context()
	for i := range 5 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if err := l.Allow(ctx, rule, "signin", "10.0.0.1"); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	for _, l := range []*ratelimit.Limiter{a, b} {
		err := l.Allow(ctx, rule, "signin", "10.0.0.1")
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("over the burst: %v, want ResourceExhausted", err)
		}
		// The reason states the limit enforced: the burst, then the rate.
		if want := "at most 5 at once, then 30 per hour"; !strings.Contains(status.Convert(err).Message(), want) {
			t.Errorf("reason %q, want it to say %q", status.Convert(err).Message(), want)
		}
		if d, ok := ratelimit.RetryDelay(err); !ok || d <= 0 || d > time.Hour {
			t.Fatalf("retry delay %v (%v), want within the period", d, ok)
		}
	}
	if err := a.Allow(ctx, rule, "signin", "10.0.0.2"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	if err := a.Allow(ctx, rule, "rooms", "10.0.0.1"); err != nil {
		t.Fatalf("another rule: %v", err)
	}
	var nilLimiter *ratelimit.Limiter
	if err := nilLimiter.Allow(ctx, rule, "signin", "10.0.0.1"); err != nil {
		t.Fatalf("nil limiter: %v", err)
	}
}

// Behind a trusted proxy the client is the right-most untrusted
// x-forwarded-for hop; an untrusted peer's header is ignored.
func TestAddrBehindProxies(t *testing.T) {
	trusted, err := ratelimit.ParsePrefixes("10.0.0.0/8, 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	at := func(peerIP, xff string) string {
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP(peerIP), Port: 1}})
		if xff != "" {
			ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("x-forwarded-for", xff))
		}
		return ratelimit.AddrBehind(ctx, trusted)
	}
	for _, c := range []struct{ peer, xff, want string }{
		{"10.1.2.3", "198.51.100.9", "198.51.100.9"},
		{"10.1.2.3", "6.6.6.6, 198.51.100.9, 10.0.0.5", "198.51.100.9"}, // a forged left entry is ignored
		{"192.0.2.1", "203.0.113.4", "203.0.113.4"},
		{"198.51.100.7", "1.2.3.4", "198.51.100.7"}, // not a proxy: its header is ignored
		{"10.1.2.3", "", "10.1.2.3"},
		{"10.1.2.3", "garbage", "10.1.2.3"},
	} {
		if got := at(c.peer, c.xff); got != c.want {
			t.Errorf("peer %s, x-forwarded-for %q: %q, want %q", c.peer, c.xff, got, c.want)
		}
	}
	if _, err := ratelimit.ParsePrefixes("10.0.0.0/33"); err == nil {
		t.Error("a bad prefix parsed")
	}
}

func TestAddr(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:5000":         "192.0.2.7",
		"[2001:db8::1]:5000":     "2001:db8::/64",
		"[2001:db8::ffff:1]:1":   "2001:db8::/64",
		"[::ffff:192.0.2.9]:443": "192.0.2.9",
	} {
		addr, err := net.ResolveTCPAddr("tcp", in)
		if err != nil {
			t.Fatal(err)
		}
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: addr})
		if got := ratelimit.Addr(ctx); got != want {
			t.Errorf("Addr(%s) = %q, want %q", in, got, want)
		}
	}
	if got := ratelimit.Addr(context.Background()); got != "" {
		t.Errorf("no peer: %q", got)
	}
}

// At most Max streams per key, on any instance; a released stream frees
// its place at once, a stream whose instance stopped renewing it frees it
// after its TTL (an injected clock, no waiting).
func TestStreamsCap(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	clock := func() time.Time { return time.UnixMilli(now.Load()) }
	a := ratelimit.NewStreams(rdb, prefix, "watch streams", 3)
	b := ratelimit.NewStreams(rdb, prefix, "watch streams", 3)
	a.Now, b.Now = clock, clock
	ctx := t.Context()
	var releases []func()
	for i := range 3 {
		s := a
		if i == 2 {
			s = b
		}
		rel, err := s.Acquire(ctx, "p1")
		if err != nil {
			t.Fatalf("stream %d: %v", i+1, err)
		}
		releases = append(releases, rel)
	}
	_, err := b.Acquire(ctx, "p1")
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("fourth stream: %v, want ResourceExhausted", err)
	}
	if _, err := a.Acquire(ctx, "p2"); err != nil {
		t.Fatalf("another player: %v", err)
	}
	releases[0]()
	rel, err := b.Acquire(ctx, "p1")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	_ = rel
	// An instance that died renews nothing: its streams lapse after TTL.
	now.Add((30*time.Second + time.Millisecond).Milliseconds())
	if n, _ := a.Open(ctx, "p1"); n != 0 {
		t.Fatalf("%d streams counted after their leases lapsed", n)
	}
	if _, err := a.Acquire(ctx, "p1"); err != nil {
		t.Fatalf("after the leases lapsed: %v", err)
	}
}
