package local

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
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
	if want := "http://" + srv.Addr() + "/"; srv.URL() != want || !strings.Contains(srv.Banner(), "open "+want+" in a browser") {
		t.Errorf("URL %q, banner:\n%s\nwant %s named", srv.URL(), srv.Banner(), want)
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
		"127.0.0.1:7070": "http://127.0.0.1:7070/",
		"0.0.0.0:7070":   "http://localhost:7070/",
		"[::]:7070":      "http://localhost:7070/",
		":7070":          "http://localhost:7070/",
		"[::1]:7070":     "http://[::1]:7070/",
		"example.org:80": "http://example.org:80/",
	} {
		if got := BrowserURL(addr); got != want {
			t.Errorf("BrowserURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
