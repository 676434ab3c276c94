package matchserver_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
	"tabuleiro.dev/services/match/matchserver"
)

// One player's open streams (Watch and Play together) are capped at 16
// by default: the 17th is RESOURCE_EXHAUSTED, and closing one frees a
// place. The spectator count of a match cannot be inflated past the cap
// by one player.
func TestPerPlayerStreamCap(t *testing.T) {
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"})
	var cancels []context.CancelFunc
	for range 16 {
		ctx, cancel := context.WithCancel(c.as(t.Context(), "carol"))
		cancels = append(cancels, cancel)
		w, err := c.client(0).Watch(ctx, &matchv1.WatchRequest{MatchId: id})
		if err != nil {
			t.Fatal(err)
		}
		if m, err := w.Recv(); err != nil || m.GetSnapshot() == nil {
			t.Fatalf("watch: %v, %v", m, err)
		}
	}
	w, err := c.client(0).Watch(c.as(t.Context(), "carol"), &matchv1.WatchRequest{MatchId: id})
	if err == nil {
		_, err = w.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("17th stream: %v, want ResourceExhausted", err)
	}
	g, err := c.client(0).GetMatch(c.as(t.Context(), "alice"), &matchv1.GetMatchRequest{MatchId: id})
	if err != nil || g.GetMatch().GetSpectators() != 16 {
		t.Fatalf("spectators %d (%v), want 16", g.GetMatch().GetSpectators(), err)
	}
	// Another player is not affected; a closed stream frees a place.
	dw, err := c.client(0).Watch(c.as(t.Context(), "dave"), &matchv1.WatchRequest{MatchId: id})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := dw.Recv(); err != nil || m.GetSnapshot() == nil {
		t.Fatalf("another player's watch: %v, %v", m, err)
	}
	cancels[0]()
	testenv.Eventually(t, 10*time.Second, "a place freed by a closed stream", func() bool {
		w, err := c.client(0).Watch(c.as(t.Context(), "carol"), &matchv1.WatchRequest{MatchId: id})
		if err != nil {
			return false
		}
		m, err := w.Recv()
		return err == nil && m.GetSnapshot() != nil
	})
}

// One client address's open streams are capped whoever signs in there
// (identities are free): through the trusted proxy, five guests at
// 203.0.113.7 fill a cap of 5 and a sixth is RESOURCE_EXHAUSTED with the
// RATE_LIMITED reason and when to retry; an IPv6 /64 counts as one
// address; another address is not affected. Openings are rated per
// address too: past the burst the address is refused, whoever opens.
func TestPerAddressStreamCap(t *testing.T) {
	t.Parallel()
	const maxOpen = 5
	proxy := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	capped := newClusterWith(t, 1, match.Config{}, nil, -1, func(sc *matchserver.Config) {
		sc.TrustedProxies, sc.MaxAddressStreams = proxy, maxOpen
	})
	rated := newClusterWith(t, 1, match.Config{}, nil, -1, func(sc *matchserver.Config) {
		sc.TrustedProxies, sc.MaxAddressStreams = proxy, -1
		sc.Limits.AddressStreamOpens = ratelimit.Rule{What: "match streams opened", Rate: 1, Burst: 3, Period: time.Hour}
	})
	guest := 0
	watch := func(c *cluster, id, addr string) error {
		guest++
		ctx := metadata.AppendToOutgoingContext(c.as(t.Context(), fmt.Sprintf("guest-%d", guest)), "x-forwarded-for", addr)
		w, err := c.client(0).Watch(ctx, &matchv1.WatchRequest{MatchId: id})
		if err != nil {
			return err
		}
		m, err := w.Recv()
		if err == nil && m.GetSnapshot() == nil {
			err = fmt.Errorf("first message %v, want the snapshot", m)
		}
		return err
	}
	refused := func(what, says string, err error) {
		t.Helper()
		st := status.Convert(err)
		info, ok := reason.Of(st)
		if st.Code() != codes.ResourceExhausted || !ok || info.GetReason() != reason.RateLimited || info.GetMetadata()["retry_seconds"] == "" {
			t.Fatalf("%s: %v (reason %v), want ResourceExhausted with RATE_LIMITED and retry_seconds", what, err, info)
		}
		if !strings.Contains(st.Message(), says) {
			t.Errorf("%s: reason %q does not say %q", what, st.Message(), says)
		}
	}
	id := capped.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"})
	for i := range maxOpen {
		if err := watch(capped, id, "203.0.113.7"); err != nil {
			t.Fatalf("guest %d at 203.0.113.7: %v", i+1, err)
		}
	}
	refused("a sixth stream from 203.0.113.7", "too many open match streams from this address (at most 5 at once)", watch(capped, id, "203.0.113.7"))
	v6 := []string{"2001:db8:1:2::1", "[2001:db8:1:2::ffff]:443", "2001:db8:1:2:aaaa::5", "2001:db8:1:2::2", "2001:db8:1:2::3"}
	for i, addr := range v6 {
		if err := watch(capped, id, addr); err != nil {
			t.Fatalf("IPv6 stream %d from %s: %v", i+1, addr, err)
		}
	}
	refused("a sixth stream from 2001:db8:1:2::/64", "at most 5 at once", watch(capped, id, "2001:db8:1:2:ffff::9"))
	for _, addr := range []string{"198.51.100.1", "2001:db8:1:3::1"} {
		if err := watch(capped, id, addr); err != nil {
			t.Fatalf("another address %s: %v", addr, err)
		}
	}

	id = rated.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"})
	for i := range 3 {
		if err := watch(rated, id, "192.0.2.50"); err != nil {
			t.Fatalf("opening %d at 192.0.2.50: %v", i+1, err)
		}
	}
	refused("a fourth opening at 192.0.2.50", "too many match streams opened from this client (at most 3 at once, then 1 per hour)", watch(rated, id, "192.0.2.50"))
	if err := watch(rated, id, "192.0.2.51"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}
