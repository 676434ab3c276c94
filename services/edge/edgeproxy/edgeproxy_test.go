package edgeproxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/affinity"
)

// backend is an HTTP server on loopback that speaks HTTP/1.1 and h2c (as
// the services do on their gRPC port) and answers with its name, the
// protocol it was reached by and the path.
type backend struct {
	addr  string
	calls atomic.Int64
	hold  chan struct{} // a /hold path waits on it
}

func startBackend(t *testing.T, name string) *backend {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{addr: lis.Addr().String(), hold: make(chan struct{})}
	srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		if strings.HasSuffix(r.URL.Path, "/hold") {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-b.hold
			return
		}
		fmt.Fprintf(w, "%s %s %s", name, r.Proto, r.URL.Path)
	})}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Close() })
	return b
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := l.Addr().String()
	l.Close()
	return a
}

func startEdge(t *testing.T, cfg Config) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, lis, e, nil, 5*time.Second, e.log) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return lis.Addr().String()
}

func clients() map[string]*http.Client {
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	h1 := &http.Transport{}
	return map[string]*http.Client{"HTTP/1.1": {Transport: h1}, "HTTP/2.0": {Transport: h2c}}
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Match calls go to match, everything else to lobby, over HTTP/1.1 (the
// browser protocols) and HTTP/2 alike; the backends always get HTTP/2.
func TestRoutesByPathAndPassesBothProtocols(t *testing.T) {
	lobby, match := startBackend(t, "lobby"), startBackend(t, "match")
	edge := startEdge(t, Config{Lobby: lobby.addr, Match: match.addr, RefreshEvery: 50 * time.Millisecond})
	for proto, c := range clients() {
		for path, want := range map[string]string{
			"/tabuleiro.match.v1.MatchService/Play":        "match HTTP/2.0 /tabuleiro.match.v1.MatchService/Play",
			"/tabuleiro.lobby.v1.LobbyService/SignInGuest": "lobby HTTP/2.0 /tabuleiro.lobby.v1.LobbyService/SignInGuest",
			"/grpc.health.v1.Health/Check":                 "lobby HTTP/2.0 /grpc.health.v1.Health/Check",
		} {
			code, body := get(t, c, "http://"+edge+path)
			if code != http.StatusOK || body != want {
				t.Errorf("%s %s: %d %q, want %q", proto, path, code, body, want)
			}
		}
	}
}

// A backend that refuses connections is skipped: the call is retried on
// the next one, whatever its protocol.
func TestRetriesOnConnectFailure(t *testing.T) {
	lobby, match := startBackend(t, "lobby"), startBackend(t, "match")
	edge := startEdge(t, Config{Lobby: deadAddr(t) + "," + lobby.addr, Match: match.addr + "," + deadAddr(t), RefreshEvery: time.Hour})
	for proto, c := range clients() {
		for range 6 {
			if code, body := get(t, c, "http://"+edge+"/tabuleiro.lobby.v1.LobbyService/ListVariants"); code != http.StatusOK || !strings.HasPrefix(body, "lobby") {
				t.Fatalf("%s: %d %q with one of two lobby backends down", proto, code, body)
			}
			if code, body := get(t, c, "http://"+edge+MatchPrefix+"GetMatch"); code != http.StatusOK || !strings.HasPrefix(body, "match") {
				t.Fatalf("%s: %d %q with one of two match backends down", proto, code, body)
			}
		}
	}
}

// Over MaxInFlight a gRPC call gets RESOURCE_EXHAUSTED at once and a
// Connect call HTTP 429; /healthz still answers.
func TestInFlightLimit(t *testing.T) {
	lobby, match := startBackend(t, "lobby"), startBackend(t, "match")
	edge := startEdge(t, Config{Lobby: lobby.addr, Match: match.addr, MaxInFlight: 1})
	c := clients()["HTTP/2.0"]
	held, err := c.Post("http://"+edge+MatchPrefix+"hold", "application/grpc", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Body.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+edge+MatchPrefix+"Play", strings.NewReader(""))
	req.Header.Set("Content-Type", "application/grpc")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := resp.Header.Get("Grpc-Status") + resp.Trailer.Get("Grpc-Status"); got != "8" || !strings.Contains(resp.Header.Get("Grpc-Message"), "EDGE_MAX_IN_FLIGHT") {
		t.Errorf("gRPC call over the limit: grpc-status %q message %q, want 8 (RESOURCE_EXHAUSTED)", got, resp.Header.Get("Grpc-Message"))
	}
	if code, _ := get(t, clients()["HTTP/1.1"], "http://"+edge+"/tabuleiro.lobby.v1.LobbyService/ListVariants"); code != http.StatusTooManyRequests {
		t.Errorf("Connect call over the limit: HTTP %d, want 429", code)
	}
	hz, err := http.Get("http://" + edge + "/healthz")
	if err != nil || hz.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %v %v", hz, err)
	}
	close(match.hold)
}

func TestLoadSettings(t *testing.T) {
	s, err := LoadSettings(func(k string) string { return map[string]string{"EDGE_MAX_IN_FLIGHT": "300"}[k] })
	if err != nil || s.Addr != ":8080" || s.LobbyAddr != "lobby:8080" || s.MaxInFlight != 300 {
		t.Errorf("LoadSettings = %+v, %v", s, err)
	}
	if _, err := LoadSettings(func(k string) string { return map[string]string{"EDGE_TLS_CERT_FILE": "/c"}[k] }); err == nil {
		t.Error("a certificate without a key was accepted")
	}
}

// A match call naming its match in AffinityHeader goes to one backend for
// that match, over either protocol; different matches spread over the
// backends; a lobby call with the header is not pinned; when the match's
// backend refuses connections the call goes to another.
func TestMatchAffinity(t *testing.T) {
	lobby := startBackend(t, "lobby")
	ms := []*backend{startBackend(t, "m0"), startBackend(t, "m1"), startBackend(t, "m2")}
	edge := startEdge(t, Config{Lobby: lobby.addr, Match: ms[0].addr + "," + ms[1].addr + "," + ms[2].addr, RefreshEvery: time.Hour})
	call := func(c *http.Client, path, match string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+edge+path, strings.NewReader("{}"))
		if match != "" {
			req.Header.Set(AffinityHeader, match)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		name, _, _ := strings.Cut(string(b), " ")
		return name
	}
	used := map[string]bool{}
	for i := range 30 {
		id := fmt.Sprintf("match-%d", i)
		var first string
		for proto, c := range clients() {
			for _, m := range []string{"Play", "SubmitPly", "Follow"} {
				got := call(c, MatchPrefix+m, id)
				if first == "" {
					first = got
				}
				if got != first {
					t.Fatalf("%s %s of %s went to %s, its earlier calls to %s", proto, m, id, got, first)
				}
			}
		}
		used[first] = true
	}
	if len(used) != 3 {
		t.Errorf("30 matches used backends %v, want all 3", used)
	}
	before := [3]int64{ms[0].calls.Load(), ms[1].calls.Load(), ms[2].calls.Load()}
	for range 6 {
		if got := call(clients()["HTTP/2.0"], MatchPrefix+"GetMatch", ""); !strings.HasPrefix(got, "m") {
			t.Fatalf("a match call without the header went to %q", got)
		}
	}
	for i, b := range ms {
		if b.calls.Load() == before[i] {
			t.Errorf("round-robin without the header skipped m%d", i)
		}
	}
	if got := call(clients()["HTTP/1.1"], "/tabuleiro.lobby.v1.LobbyService/ListVariants", "match-1"); got != "lobby" {
		t.Errorf("a lobby call with the header went to %q", got)
	}

	// The backend of match-0 stops: its calls go on elsewhere.
	dead := deadAddr(t)
	owner := call(clients()["HTTP/2.0"], MatchPrefix+"Play", "match-0")
	addrs := []string{}
	for i, b := range ms {
		if fmt.Sprintf("m%d", i) == owner {
			addrs = append(addrs, dead)
		} else {
			addrs = append(addrs, b.addr)
		}
	}
	edge2 := startEdge(t, Config{Lobby: lobby.addr, Match: strings.Join(addrs, ","), RefreshEvery: time.Hour})
	req, _ := http.NewRequest(http.MethodPost, "http://"+edge2+MatchPrefix+"Play", strings.NewReader("{}"))
	req.Header.Set(AffinityHeader, "match-0")
	resp, err := clients()["HTTP/2.0"].Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), "m") || strings.HasPrefix(string(b), owner) {
		t.Errorf("with match-0's backend down: %d %q, want another match backend", resp.StatusCode, b)
	}
}

// TestAffinityHeaderOddValues: the affinity header is a routing hint
// only. A value longer than a match id is ignored (the call goes
// round-robin; hashing a megabyte for every backend cost the edge 12 ms a
// call), so is an empty one; of repeated values the first decides; a
// value with bytes that are not UTF-8 is routed like any other; a control
// character is refused by the HTTP server (400), and the edge answers on.
func TestAffinityHeaderOddValues(t *testing.T) {
	lobby := startBackend(t, "lobby")
	ms := []*backend{startBackend(t, "m0"), startBackend(t, "m1"), startBackend(t, "m2")}
	edge := startEdge(t, Config{Lobby: lobby.addr, Match: ms[0].addr + "," + ms[1].addr + "," + ms[2].addr, RefreshEvery: time.Hour})
	c := clients()["HTTP/2.0"]
	call := func(values ...string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+edge+MatchPrefix+"Play", strings.NewReader("{}"))
		for _, v := range values {
			req.Header.Add(AffinityHeader, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d values, the first %d bytes: HTTP %d %q", len(values), len(values[0]), resp.StatusCode, b)
		}
		name, _, _ := strings.Cut(string(b), " ")
		return name
	}
	spread := func(what string, values ...string) {
		t.Helper()
		got := map[string]bool{}
		for range 6 {
			got[call(values...)] = true
		}
		if len(got) < 2 {
			t.Errorf("%s: pinned to %v, want round-robin", what, got)
		}
	}
	spread("a 64 KiB value", strings.Repeat("x", 64<<10))
	spread("a value one byte longer than a match id", strings.Repeat("x", affinity.MaxLen+1))
	spread("an empty value", "")
	longest := strings.Repeat("y", affinity.MaxLen)
	if a, b := call(longest), call(longest); a != b {
		t.Errorf("a match id of %d bytes went to %s, then %s", affinity.MaxLen, a, b)
	}
	for i := range 20 {
		id := fmt.Sprintf("match-%d", i)
		first := call(id)
		if got := call(append([]string{id}, strings.Split(strings.Repeat("other,", 500), ",")...)...); got != first {
			t.Fatalf("%s with 500 more values went to %s, alone to %s", id, got, first)
		}
	}

	// Raw HTTP/1.1, as a browser or a proxy might pass bytes through.
	raw := func(value string) string {
		t.Helper()
		conn, err := net.Dial("tcp", edge)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST %sPlay HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n%s: %s\r\nConnection: close\r\n\r\n{}", MatchPrefix, AffinityHeader, value)
		b, _ := io.ReadAll(conn)
		status, _, _ := strings.Cut(string(b), "\r\n")
		return status
	}
	if got := raw("m\xff\xfe-\xc3("); !strings.Contains(got, " 200 ") {
		t.Errorf("a value that is not UTF-8: %q, want 200", got)
	}
	if got := raw("m\x01x"); !strings.Contains(got, " 400 ") {
		t.Errorf("a value with a control character: %q, want 400", got)
	}
	if got := call("match-1"); !strings.HasPrefix(got, "m") {
		t.Errorf("after the odd values: %q", got)
	}
}
