package local

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/testenv"
)

// TestBrowserProtocolsAndPages: the one-process server answers a browser's
// protocols (Connect and gRPC-Web over HTTP/1.1) on its port, serves the
// extra handler on other paths, and names its URL in the banner.
func TestBrowserProtocolsAndPages(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t, "local")
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "<!doctype html><title>Tabuleiro</title>")
	})
	ctx, cancel := context.WithCancel(t.Context())
	srv, err := Start(ctx, Options{DataDir: t.TempDir(), RedisURL: testenv.RedisURL(t), KeyPrefix: prefix, HTTPHandler: page})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() {
		cancel()
		if err := srv.Wait(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	if want := BrowserURL(srv.Addr()); srv.URL() != want || !strings.HasPrefix(want, "http://localhost:") || !srv.Stores().Web {
		t.Errorf("URL %q, stores %+v, want %s and the web client served", srv.URL(), srv.Stores(), want)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	resp, err := hc.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<title>Tabuleiro</title>") {
		t.Errorf("GET / = %d %q", resp.StatusCode, body)
	}
	base := strings.TrimSuffix(srv.URL(), "/")
	for _, opts := range [][]connect.ClientOption{nil, {connect.WithGRPCWeb()}, {connect.WithProtoJSON()}} {
		c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc,
			base+lobbyv1.LobbyService_SignInGuest_FullMethodName, opts...)
		res, err := c.CallUnary(t.Context(), connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Ana"}))
		if err != nil || res.Msg.GetToken() == "" {
			t.Errorf("SignInGuest over HTTP/1.1 (%d options) = %v, %v", len(opts), res, err)
		}
	}
}

func TestBrowserURL(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1:7070": "http://localhost:7070/",
		"0.0.0.0:7070":   "http://localhost:7070/",
		"[::]:7070":      "http://localhost:7070/",
		":7070":          "http://localhost:7070/",
		"[::1]:7070":     "http://localhost:7070/",
		"10.1.2.3:7070":  "http://10.1.2.3:7070/",
		"example.org:80": "http://example.org:80/",
	} {
		if got := BrowserURL(addr); got != want {
			t.Errorf("BrowserURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// Behind a reverse proxy on the same host (TrustedProxies), each player's
// calls count against the address the proxy names, and the per-address
// limits hold; without it every loopback call is this computer's own.
func TestTrustedProxyKeepsTheLimits(t *testing.T) {
	t.Parallel()
	signIns := func(t *testing.T, o Options) (ok, limited int) {
		ctx, cancel := context.WithCancel(t.Context())
		srv, err := Start(ctx, o)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		defer func() {
			cancel()
			_ = srv.Wait()
		}()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](&http.Client{Transport: tr},
			"http://"+srv.Addr()+lobbyv1.LobbyService_SignInGuest_FullMethodName, connect.WithProtoJSON())
		for range 15 {
			req := connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Proxied"})
			req.Header().Set("X-Forwarded-For", "192.0.2.9")
			_, err := c.CallUnary(t.Context(), req)
			switch connect.CodeOf(err) {
			case connect.CodeResourceExhausted:
				limited++
			default:
				if err != nil {
					t.Fatalf("sign-in: %v", err)
				}
				ok++
			}
		}
		return ok, limited
	}
	_, prefix := testenv.Redis(t, "local")
	loopback := netip.MustParsePrefix("127.0.0.1/32")
	if ok, limited := signIns(t, Options{DataDir: t.TempDir(), RedisURL: testenv.RedisURL(t), KeyPrefix: prefix + "a:", TrustedProxies: []netip.Prefix{loopback}}); limited == 0 || ok > 10 {
		t.Errorf("behind a trusted proxy: %d sign-ins allowed, %d limited; want the guest sign-in burst (10), then limited", ok, limited)
	}
	if ok, limited := signIns(t, Options{DataDir: t.TempDir(), RedisURL: testenv.RedisURL(t), KeyPrefix: prefix + "b:"}); limited != 0 {
		t.Errorf("without a trusted proxy: %d allowed, %d limited; want loopback unlimited", ok, limited)
	}
}

// Behind a trusted proxy on this host, every spelling of the client in
// X-Forwarded-For is limited, the ones with a port or brackets as the
// bare address and one that does not parse as a client of its own (never
// the proxy's exempt loopback address); and the match service's
// per-player call rate applies to a player behind the proxy, where it
// once exempted every call by the proxy's own address.
func TestTrustedProxyLimitsEverySpelling(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t, "local")
	ctx, cancel := context.WithCancel(t.Context())
	srv, err := Start(ctx, Options{DataDir: t.TempDir(), RedisURL: testenv.RedisURL(t), KeyPrefix: prefix,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		MatchCalls:     ratelimit.Rule{What: "match calls", Rate: 1, Burst: 5, Period: time.Hour}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = srv.Wait()
	}()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	signIn := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc,
		"http://"+srv.Addr()+lobbyv1.LobbyService_SignInGuest_FullMethodName, connect.WithProtoJSON())
	var token string
	for _, xff := range []string{"192.0.2.9", "203.0.113.201:5555", "[2001:db8::1]", "[2001:db8:0:1::1]:443", "garbage", "198.51.100.1, unknown"} {
		ok := 0
		for range 15 {
			req := connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Proxied"})
			req.Header().Set("X-Forwarded-For", xff)
			res, err := signIn.CallUnary(t.Context(), req)
			switch connect.CodeOf(err) {
			case connect.CodeResourceExhausted:
			default:
				if err != nil {
					t.Fatalf("sign-in as %q: %v", xff, err)
				}
				ok++
				token = res.Msg.GetToken()
			}
		}
		if ok > 10 {
			t.Errorf("X-Forwarded-For %q: %d of 15 sign-ins allowed, want at most the burst (10)", xff, ok)
		}
	}
	getMatch := connect.NewClient[matchv1.GetMatchRequest, matchv1.GetMatchResponse](hc,
		"http://"+srv.Addr()+matchv1.MatchService_GetMatch_FullMethodName, connect.WithProtoJSON())
	answered := 0
	for range 10 {
		req := connect.NewRequest(&matchv1.GetMatchRequest{MatchId: "no-such-match"})
		req.Header().Set("X-Forwarded-For", "192.0.2.77")
		req.Header().Set("Authorization", "Bearer "+token)
		_, err := getMatch.CallUnary(t.Context(), req)
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			answered++
		}
	}
	if answered != 5 {
		t.Errorf("a player behind the proxy: %d of 10 GetMatch calls answered, want the burst (5)", answered)
	}
}
