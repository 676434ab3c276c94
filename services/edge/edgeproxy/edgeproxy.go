// Package edgeproxy is Tabuleiro's edge: the one address clients use. It
// routes /tabuleiro.match.v1.MatchService/… to the match replicas and
// everything else (lobby.v1, grpc.health.v1, reflection) to the lobby
// replicas, passing gRPC (HTTP/2, cleartext or TLS) and the browser
// protocols (gRPC-Web and Connect over HTTP/1.1 or HTTP/2, which the
// services serve on their gRPC port) through unchanged. It is the standard
// library's httputil.ReverseProxy with:
//
//   - backends found by DNS (a headless Service name resolves to every
//     ready pod), re-resolved every RefreshEvery, balanced round-robin per
//     request over those whose grpc.health.v1 says SERVING (all of them if
//     none does, so a health outage cannot close the edge);
//   - match affinity: a match call that names its match in the
//     AffinityHeader goes to the backend that rendezvous hashing picks for
//     that match among the healthy ones, so both seats of a game and its
//     spectators meet on one match replica (which then publishes and
//     decodes each commit once, not on two or three replicas); a value
//     that cannot be a match id (over affinity.MaxLen bytes) is ignored;
//   - a retry on the next backend when connecting fails (nothing was sent,
//     so any call can be retried), up to every backend once;
//   - a limit on the calls in flight (MaxInFlight, sized for the HPAs'
//     maximum): a call over it is refused at once with gRPC status
//     RESOURCE_EXHAUSTED (HTTP 429 for the browser protocols) instead of
//     queueing without bound;
//   - no admin interface: the only other path it answers itself is
//     GET /healthz.
package edgeproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"tabuleiro.dev/pkg/platform/affinity"
)

// MatchPrefix is the path prefix routed to the match service.
const MatchPrefix = "/tabuleiro.match.v1.MatchService/"

// AffinityHeader is the request header (gRPC metadata) in which a client
// names the match a match call is about; the edge sends every call of one
// match to the same replica. Without it a call goes round-robin.
const AffinityHeader = affinity.Header

// Config is the edge's configuration.
type Config struct {
	// Lobby and Match are host:port of the backends, or several separated
	// by commas; a host name that resolves to several addresses balances
	// over all of them.
	Lobby, Match string
	// BackendTLS, when set, dials the backends over TLS with it; cleartext
	// HTTP/2 (h2c) otherwise.
	BackendTLS *tls.Config
	// MaxInFlight bounds the calls (streams included) the edge carries at
	// once; 0 means DefaultMaxInFlight.
	MaxInFlight int
	// RefreshEvery is how often backends are re-resolved and health
	// checked; 0 means 2 s.
	RefreshEvery time.Duration
	// ConnectTimeout bounds one connection attempt; 0 means 2 s.
	ConnectTimeout time.Duration
	Logger         *slog.Logger
}

// DefaultMaxInFlight covers the match HPA's maximum (10 replicas) times the
// streams a match replica is sized for (2,000: two Play streams per game,
// spectators) plus the lobby's calls.
const DefaultMaxInFlight = 25000

// Edge is the proxy; it is an http.Handler.
type Edge struct {
	cfg          Config
	lobby, match *pool
	proxy        *httputil.ReverseProxy
	inFlight     chan struct{}
	log          *slog.Logger
}

type ctxKey struct{}

// New returns the edge and starts its backend refresh, which stops with
// ctx.
func New(ctx context.Context, cfg Config) (*Edge, error) {
	if cfg.Lobby == "" || cfg.Match == "" {
		return nil, errors.New("edge: both the lobby and the match backend are required")
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.RefreshEvery <= 0 {
		cfg.RefreshEvery = 2 * time.Second
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Edge{cfg: cfg, inFlight: make(chan struct{}, cfg.MaxInFlight), log: cfg.Logger}
	var err error
	if e.lobby, err = newPool(ctx, "lobby", cfg.Lobby, cfg); err != nil {
		return nil, err
	}
	if e.match, err = newPool(ctx, "match", cfg.Match, cfg); err != nil {
		return nil, err
	}
	for _, p := range []*pool{e.lobby, e.match} {
		p.tr = transport(cfg, p.entries[0][0])
	}
	e.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Host = r.In.Context().Value(ctxKey{}).(string)
			if cfg.BackendTLS != nil {
				r.Out.URL.Scheme = "https"
			} else {
				r.Out.URL.Scheme = "http"
			}
			r.SetXForwarded()
		},
		Transport:     retrying{e: e},
		FlushInterval: -1, // streams: every message at once
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			e.log.WarnContext(r.Context(), "edge: backend call failed", "path", r.URL.Path, "err", err)
			refuse(w, r, http.StatusBadGateway, 14, "edge: no backend answered: "+err.Error())
		},
	}
	return e, nil
}

// ServeHTTP routes one call.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" && r.Method == http.MethodGet {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok\n"))
		return
	}
	select {
	case e.inFlight <- struct{}{}:
		defer func() { <-e.inFlight }()
	default:
		refuse(w, r, http.StatusTooManyRequests, 8, fmt.Sprintf("edge: %d calls in flight, the most it carries (EDGE_MAX_IN_FLIGHT)", e.cfg.MaxInFlight))
		return
	}
	p := e.lobby
	if strings.HasPrefix(r.URL.Path, MatchPrefix) {
		p = e.match
	}
	var (
		addr string
		ok   bool
	)
	// A value longer than a match id names no match: hashing it for every
	// backend would cost the edge far more than reading it.
	if key := r.Header.Get(AffinityHeader); key != "" && len(key) <= affinity.MaxLen && p == e.match {
		addr, ok = p.pick(key)
	} else {
		addr, ok = p.next("")
	}
	if !ok {
		refuse(w, r, http.StatusServiceUnavailable, 14, "edge: no "+p.name+" backend resolves")
		return
	}
	e.proxy.ServeHTTP(w, r.WithContext(context.WithValue(context.WithValue(r.Context(), ctxKey{}, addr), poolKey{}, p)))
}

type poolKey struct{}

// retrying is the transport that tries the next backend when connecting
// fails: no byte of the call was sent, so retrying is safe for any call.
type retrying struct {
	e *Edge
}

// transport is the HTTP/2 client of one service's backends: it dials their
// addresses and, over TLS, verifies the service's host name.
func transport(cfg Config, host string) *http.Transport {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		Protocols:           new(http.Protocols),
	}
	if cfg.BackendTLS != nil {
		tr.TLSClientConfig = cfg.BackendTLS.Clone()
		if tr.TLSClientConfig.ServerName == "" {
			tr.TLSClientConfig.ServerName = host
		}
		tr.Protocols.SetHTTP2(true)
	} else {
		tr.Protocols.SetUnencryptedHTTP2(true)
	}
	return tr
}

func (rt retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	p := req.Context().Value(poolKey{}).(*pool)
	tries := max(1, p.size())
	if req.Body != nil && req.Body != http.NoBody {
		// A transport that fails to connect closes the body it never read:
		// keep it open for the next try (the proxy closes it in the end).
		req.Body = keepOpen{req.Body}
	}
	var err error
	for i := range tries {
		var resp *http.Response
		resp, err = p.tr.RoundTrip(req)
		if err == nil || !isConnectError(err) || i == tries-1 {
			return resp, err
		}
		next, ok := p.next(req.URL.Host)
		if !ok {
			break
		}
		rt.e.log.InfoContext(req.Context(), "edge: connect failed, trying the next backend", "backend", req.URL.Host, "next", next, "err", err)
		req = req.Clone(req.Context())
		req.URL.Host = next
	}
	return nil, err
}

func isConnectError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// refuse answers a call the edge cannot carry, in the caller's protocol:
// a gRPC status (HTTP 200 with grpc-status, as gRPC and gRPC-Web expect)
// or, for Connect and plain HTTP, the HTTP status.
func refuse(w http.ResponseWriter, r *http.Request, httpStatus, grpcCode int, msg string) {
	ct := r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/grpc") {
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Grpc-Status", fmt.Sprint(grpcCode))
		w.Header().Set("Grpc-Message", msg)
		w.WriteHeader(http.StatusOK)
		return
	}
	http.Error(w, msg, httpStatus)
}

// pool is one service's backends.
type pool struct {
	name         string
	entries      [][2]string // host, port
	cfg          Config
	mu           sync.Mutex
	all, healthy []string          // ip:port
	hostOf       map[string]string // address → the host name it resolved from
	tr           *http.Transport
	rr           atomic.Uint64
	conns        map[string]*grpc.ClientConn
}

func newPool(ctx context.Context, name, hostport string, cfg Config) (*pool, error) {
	p := &pool{name: name, cfg: cfg, conns: map[string]*grpc.ClientConn{}}
	for _, hp := range strings.Split(hostport, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(hp))
		if err != nil {
			return nil, fmt.Errorf("edge: %s backend %q: %w", name, hp, err)
		}
		p.entries = append(p.entries, [2]string{host, port})
	}
	p.refresh(ctx)
	go func() {
		t := time.NewTicker(cfg.RefreshEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				p.mu.Lock()
				for _, c := range p.conns {
					_ = c.Close()
				}
				p.mu.Unlock()
				return
			case <-t.C:
				p.refresh(ctx)
			}
		}
	}()
	return p, nil
}

// refresh resolves the backends and checks their health.
func (p *pool) refresh(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, p.cfg.RefreshEvery)
	defer cancel()
	var all, healthy []string
	hosts := map[string]string{}
	for _, hp := range p.entries {
		ips, err := net.DefaultResolver.LookupHost(rctx, hp[0])
		if err != nil {
			p.cfg.Logger.WarnContext(ctx, "edge: resolve backends", "service", p.name, "host", hp[0], "err", err)
			p.mu.Lock()
			for _, a := range p.all { // keep the last known addresses of it
				if hosts[a] == "" && p.hostOf[a] == hp[0] {
					all, hosts[a] = append(all, a), hp[0]
				}
			}
			p.mu.Unlock()
			continue
		}
		for _, ip := range ips {
			addr := net.JoinHostPort(ip, hp[1])
			all, hosts[addr] = append(all, addr), hp[0]
		}
	}
	for _, addr := range all {
		if p.serving(rctx, addr, hosts[addr]) {
			healthy = append(healthy, addr)
		}
	}
	p.mu.Lock()
	for addr, c := range p.conns {
		if !contains(all, addr) {
			_ = c.Close()
			delete(p.conns, addr)
		}
	}
	p.all, p.healthy, p.hostOf = all, healthy, hosts
	p.mu.Unlock()
}

func (p *pool) serving(ctx context.Context, addr, host string) bool {
	p.mu.Lock()
	c := p.conns[addr]
	if c == nil {
		creds := insecure.NewCredentials()
		if p.cfg.BackendTLS != nil {
			tc := p.cfg.BackendTLS.Clone()
			if tc.ServerName == "" {
				tc.ServerName = host
			}
			creds = credentials.NewTLS(tc)
		}
		var err error
		if c, err = grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(creds)); err != nil {
			p.mu.Unlock()
			return false
		}
		p.conns[addr] = c
	}
	p.mu.Unlock()
	resp, err := healthpb.NewHealthClient(c).Check(ctx, &healthpb.HealthCheckRequest{})
	return err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING
}

// candidates are the backends a call may go to: the healthy ones, or all
// when none is (a health outage must not close the edge).
func (p *pool) candidates() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.healthy) == 0 {
		return p.all
	}
	return p.healthy
}

// next returns the next backend round-robin, preferring healthy ones and
// skipping not; ok is false when none resolves.
func (p *pool) next(not string) (string, bool) {
	set := p.candidates()
	if len(set) == 0 {
		return "", false
	}
	for range len(set) {
		a := set[int(p.rr.Add(1)%uint64(len(set)))]
		if a != not || len(set) == 1 {
			return a, true
		}
	}
	return set[0], true
}

// pick returns the backend of key by rendezvous hashing over the healthy
// backends (all when none is): the same key gets the same backend while
// the set stays, and a backend that leaves or joins moves only its share
// of the keys.
func (p *pool) pick(key string) (string, bool) {
	set := p.candidates()
	if len(set) == 0 {
		return "", false
	}
	var best string
	var top uint64
	for _, a := range set {
		h := fnv.New64a()
		h.Write([]byte(key))
		h.Write([]byte{0})
		h.Write([]byte(a))
		if sc := mix(h.Sum64()); best == "" || sc > top {
			best, top = a, sc
		}
	}
	return best, true
}

// mix spreads FNV's bits (its high bits vary little with a short
// suffix): splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (p *pool) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// keepOpen ignores Close, so that a body survives a failed connection.
type keepOpen struct{ io.ReadCloser }

func (keepOpen) Close() error { return nil }
