package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tabuleiro.dev/cmd/tabuleiro/internal/dirlock"
	"tabuleiro.dev/cmd/tabuleiro/internal/walredis"
	"tabuleiro.dev/migrations"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/redisconn"
	"tabuleiro.dev/pkg/platform/signin"
	"tabuleiro.dev/services/bot/botserver"
	"tabuleiro.dev/services/lobby/lobbyserver"
	"tabuleiro.dev/services/match/matchserver"
)

// Options configure the one-process server.
type Options struct {
	// Addr is where to listen; "127.0.0.1:0" picks a free loopback port.
	Addr string
	// DataDir holds the token key, the embedded Redis's log and snapshots
	// (redis/) and the SQLite database of results; required.
	DataDir string
	// RedisURL, when set, uses that Redis instead of the embedded one.
	RedisURL string
	// DatabaseURL, when set, uses that PostgreSQL instead of the embedded
	// SQLite database.
	DatabaseURL string
	// Logger receives the services' logs; nil discards them.
	Logger *slog.Logger
	// KeyPrefix is put before every Redis key of the services; "" means
	// "tabuleiro:". Tests sharing a Redis give each run its own.
	KeyPrefix string
	// ReconnectWindow and FirstPlyTimeout, when set, replace the match
	// service's defaults (60 s and 30 s). `tabuleiro play` sets both long,
	// so that a game against a bot or at one keyboard survives the process
	// stopping and is resumed days later.
	ReconnectWindow, FirstPlyTimeout time.Duration
	// UntimedBotWait, when set, is how long a game against a bot without
	// a clock waits for its player (match.Config.UntimedBotWait): `serve`
	// keeps a browser's bot game as `play` keeps the terminal's.
	UntimedBotWait time.Duration
	// Now, when set, is the match service's clock (tests move it on).
	Now func() time.Time
	// DevicePoll, when set, is the polling interval of device sign-ins
	// (`tabuleiro login`; default 5 s): tests poll faster.
	DevicePoll time.Duration
	// HTTPHandler, when set, serves every HTTP request on the port that is
	// not an RPC: the web client's files. The RPCs themselves are served
	// over gRPC, gRPC-Web and Connect either way.
	HTTPHandler http.Handler
	// TrustedProxies are proxies in front of this server (a reverse proxy
	// on the same host): a call through one is counted against the
	// client address it names in X-Forwarded-For, so the per-address
	// limits apply to the players behind it. Without them every call from
	// loopback is this computer's own and unlimited.
	TrustedProxies []netip.Prefix
	// CORSOrigins are the origins whose pages may call the RPCs
	// cross-origin; empty means same-origin only.
	CORSOrigins []string
	// MixedConnections serves every plaintext HTTP/2 connection by
	// net/http, for a proxy in front that sends native gRPC and the
	// browsers' calls on one of its connections (grpcserve.Options).
	MixedConnections bool
	// PasskeyRPID and PasskeyOrigins are the WebAuthn relying party of
	// passkeys; an empty PasskeyRPID takes this server's own origin
	// (DefaultPasskeys of the address it listens on).
	PasskeyRPID    string
	PasskeyOrigins []string

	// RedisCompactBytes, when set, replaces the log growth (4 MiB) that
	// starts a compaction of the embedded Redis's write-ahead log (the
	// crash test sets it small, to kill compactions too).
	RedisCompactBytes int64
	// MatchCalls, when set, replaces the match service's per-player call
	// rate (tests make it small, to see it apply without a flood).
	MatchCalls ratelimit.Rule
}

// Server is the lobby, match and bot services in one process, on one gRPC
// port.
type Server struct {
	addr    string
	url     string
	issuer  *auth.Issuer
	stores  Stores
	done    chan struct{}
	err     error
	closers []func(context.Context) error
}

// Start opens the stores, builds the three services with the same
// constructors their own mains call, and serves them on one listener until
// ctx ends; Wait returns once everything has stopped and the stores are
// saved.
func Start(ctx context.Context, o Options) (srv *Server, err error) {
	if o.DataDir == "" {
		return nil, errors.New("no data directory")
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = "tabuleiro:"
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	s := &Server{done: make(chan struct{})}
	defer func() {
		if err != nil {
			s.close(context.WithoutCancel(ctx))
		}
	}()
	// One command at a time on the directory, whatever stores it uses:
	// taken first, let go last.
	lock, err := dirlock.Lock(o.DataDir)
	if err != nil {
		if b := busy(o.DataDir, err); b != err {
			return nil, b
		}
		return nil, fmt.Errorf("data directory: %w", err)
	}
	if lock != nil {
		s.closers = append(s.closers, func(context.Context) error { return lock.Close() })
	}
	key, err := tokenKey(o.DataDir)
	if err != nil {
		return nil, err
	}
	if s.issuer, err = auth.NewIssuer(key); err != nil {
		return nil, err
	}
	verifier, err := auth.NewVerifier(key)
	if err != nil {
		return nil, err
	}

	s.stores.DataDir, s.stores.Web = o.DataDir, o.HTTPHandler != nil
	redisURL := o.RedisURL
	if redisURL == "" {
		dir := filepath.Join(o.DataDir, "redis")
		r, err := walredis.Open(walredis.Options{
			Dir: dir, Logger: logger, CompactMinBytes: o.RedisCompactBytes,
			Legacy: filepath.Join(o.DataDir, "redis.jsonl"),
		})
		if err != nil {
			return nil, busy(o.DataDir, err)
		}
		s.closers = append(s.closers, func(context.Context) error { return r.Close() })
		redisURL = r.URL()
		s.stores.EmbeddedRedisDir = dir
	} else {
		s.stores.RedisURL = redactURL(redisURL)
	}
	rdb, err := redisconn.Open(redisURL)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func(context.Context) error { return rdb.Close() })
	if err := dropStreamLeases(ctx, rdb, o.KeyPrefix); err != nil {
		return nil, err
	}

	// Results: the embedded SQLite file, or a PostgreSQL server. Migrate
	// once, before any service starts: two services migrating at once
	// would wait on each other's lock.
	var matchDeps matchserver.Deps
	var lobbyDeps lobbyserver.Deps
	if o.DatabaseURL == "" {
		path := filepath.Join(o.DataDir, "results.db")
		if err := privateFiles(path, path+"-wal", path+"-shm"); err != nil {
			return nil, err
		}
		db, err := migrations.OpenSQLite(path)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, func(context.Context) error { return db.Close() })
		if _, err := migrations.UpSQLite(ctx, db); err != nil {
			return nil, err
		}
		matchDeps.SQLite, lobbyDeps.SQLite = db, db
		s.stores.SQLiteFile = path
	} else {
		pool, err := pgxpool.New(ctx, o.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("open database: %w", err)
		}
		s.closers = append(s.closers, func(context.Context) error { pool.Close(); return nil })
		db, err := sql.Open("pgx", o.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("open database: %w", err)
		}
		s.closers = append(s.closers, func(context.Context) error { return db.Close() })
		if _, err := migrations.Up(ctx, db); err != nil {
			return nil, err
		}
		matchDeps.DB, lobbyDeps.DB = db, pool
		s.stores.DatabaseURL = redactURL(o.DatabaseURL)
	}

	l, err := net.Listen("tcp", o.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen: %w; another server is running there: reach it with --server %s, or use --addr HOST:PORT (port 0 picks a free one)", err, o.Addr)
	}
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s.addr = l.Addr().String()
	// The services call each other over the same port, as they would over
	// the network, each with its own service credential.
	dialSelf := func(name string) (*grpc.ClientConn, error) {
		return grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithPerRPCCredentials(auth.NewServiceCredentials(s.issuer, name, time.Hour)))
	}
	lobbyConn, err := dialSelf("lobby")
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	s.closers = append(s.closers, func(context.Context) error { return lobbyConn.Close() })
	matchConn, err := dialSelf("match")
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	s.closers = append(s.closers, func(context.Context) error { return matchConn.Close() })

	matchDeps.Redis, matchDeps.Logger = rdb, logger
	matchDeps.Bot = matchserver.NewBotClient(botv1.NewBotServiceClient(matchConn))
	matchDeps.Now = o.Now
	mcfg := matchserver.Config{KeyPrefix: o.KeyPrefix + "match:", InstanceID: "local"}
	mcfg.Match.ReconnectWindow, mcfg.Match.FirstPlyTimeout = o.ReconnectWindow, o.FirstPlyTimeout
	mcfg.Match.UntimedBotWait = o.UntimedBotWait
	mcfg.Store.LiveTTL = matchserver.LiveTTL(mcfg.Match)
	// Its own clients (play --auto and replays at full speed) call from
	// loopback, exempt from the per-player call rate, as in the lobby.
	mcfg.ExemptLoopback, mcfg.TrustedProxies = true, o.TrustedProxies
	mcfg.Limits.Calls = o.MatchCalls
	ms := matchserver.New(ctx, matchDeps, mcfg)
	lobbyDeps.Redis, lobbyDeps.Issuer, lobbyDeps.Verifier, lobbyDeps.Logger = rdb, s.issuer, verifier, logger
	lobbyDeps.Matches = lobbyserver.NewMatchClient(matchv1.NewMatchServiceClient(lobbyConn))
	// Game reviews run on this process's bot service, as the lobby's.
	lobbyDeps.Bot = botv1.NewBotServiceClient(lobbyConn)
	lcfg := lobbyserver.Config{RedisPrefix: o.KeyPrefix + "lobby:"}
	// One person plays here and keeps resumable games against bots and at
	// one keyboard: an unfinished game must not block a new one.
	lcfg.Matchmaking.ConcurrentMatches = true
	// Its own terminal client and replays call from loopback, unlimited;
	// friends joining a served game are limited per address as anywhere,
	// and nobody keeps more than 10 live bot games.
	lcfg.ExemptLoopback, lcfg.MaxBotMatches = true, 10
	lcfg.TrustedProxies = o.TrustedProxies
	lcfg.Passkeys.RPID, lcfg.Passkeys.Origins = o.PasskeyRPID, o.PasskeyOrigins
	if lcfg.Passkeys.RPID == "" {
		lcfg.Passkeys.RPID, lcfg.Passkeys.Origins = DefaultPasskeys(s.addr)
	}
	lcfg.DevicePoll = o.DevicePoll
	lob, err := lobbyserver.New(ctx, lobbyDeps, lcfg)
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("lobby: %w", err)
	}
	policy := auth.Policy{
		Public:      lobbyserver.AuthPolicy().Public,
		ServiceOnly: append(append([]string(nil), lobbyserver.AuthPolicy().ServiceOnly...), matchserver.ServiceOnly()...),
	}
	policy.ServiceOnly = append(policy.ServiceOnly, botserver.Policy().ServiceOnly...)
	// A token of a sign-in that ended (signed out, revoked, a deleted
	// account) is refused by every service, not by the lobby alone; the
	// embedded Redis is read on each call (no cache).
	policy.SignIns = signin.New(rdb, lcfg.RedisPrefix, 0)

	s.url = BrowserURL(s.addr)

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	runCtx, cancel := context.WithCancel(ctx)
	// A service that stops because the server is stopping (even while it
	// is still starting) has not failed.
	failed := func(err error) bool { return err != nil && (runCtx.Err() == nil || !errors.Is(err, context.Canceled)) }
	wg.Go(func() {
		if err := ms.Run(runCtx); failed(err) {
			errs <- fmt.Errorf("match: %w", err)
			cancel()
		}
	})
	wg.Go(func() {
		if err := lob.Run(runCtx); failed(err) {
			errs <- fmt.Errorf("lobby: %w", err)
			cancel()
		}
	})
	wg.Go(func() {
		err := grpcserve.Run(runCtx, grpcserve.Options{
			Listener: l, Logger: logger, ShutdownTimeout: 5 * time.Second,
			Auth:        auth.NewInterceptor(verifier, policy),
			HTTPHandler: o.HTTPHandler, CORSOrigins: o.CORSOrigins, MixedConnections: o.MixedConnections,
		}, func(g *grpc.Server) {
			lob.Register(g)
			ms.Register(g)
			botserver.Register(g)
		})
		if err != nil {
			errs <- fmt.Errorf("serve: %w", err)
		}
		cancel()
	})
	go func() {
		wg.Wait()
		cancel()
		close(errs)
		var all []error
		for e := range errs {
			all = append(all, e)
		}
		all = append(all, s.close(context.WithoutCancel(ctx)))
		s.err = errors.Join(all...)
		close(s.done)
	}()
	return s, nil
}

// close runs the closers in reverse order: connections, then the stores.
func (s *Server) close(ctx context.Context) error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i](ctx))
	}
	s.closers = nil
	return errors.Join(errs...)
}

// Addr is the address the services listen on.
func (s *Server) Addr() string { return s.addr }

// URL is the server's address as a browser opens it: the web client (when
// Options.HTTPHandler serves it) and the gRPC-Web and Connect APIs.
func (s *Server) URL() string { return s.url }

// BrowserURL is the http URL of a listening address; an unspecified or
// loopback host (0.0.0.0, ::, 127.0.0.1, ::1) becomes localhost, which a
// browser on this machine reaches and which, unlike an IP address, may be
// a passkey's relying party (DefaultPasskeys).
func BrowserURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && (ip.IsUnspecified() || ip.IsLoopback())) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// Stores says where a Server keeps its state: for its banner, which the
// command that started it words in the player's language.
type Stores struct {
	// EmbeddedRedisDir is the embedded Redis's write-ahead log directory,
	// or "" when RedisURL names a Redis server (its password hidden).
	EmbeddedRedisDir, RedisURL string
	// SQLiteFile is the embedded SQLite database, or "" when DatabaseURL
	// names a PostgreSQL server (its password hidden).
	SQLiteFile, DatabaseURL string
	// DataDir holds the token key and the identities.
	DataDir string
	// Web is whether the port serves the web client too.
	Web bool
}

// Stores says which stores are in use.
func (s *Server) Stores() Stores { return s.stores }

// ServiceCredentials returns a credential of the tabuleiro command itself,
// for the service-only calls of a replay (match.v1 CreateMatch).
func (s *Server) ServiceCredentials() *auth.ServiceCredentials {
	return auth.NewServiceCredentials(s.issuer, "tabuleiro", time.Hour)
}

// Wait blocks until the server has stopped (its ctx ended, or a service
// failed) and the stores are closed, and returns what went wrong.
func (s *Server) Wait() error {
	<-s.done
	return s.err
}

// Done is closed once the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

// redactURL drops a URL's password.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}

// dropStreamLeases deletes the per-player stream leases (the caps on open
// match and lobby streams) left by an earlier run of this process: here one
// process holds every stream, so after a crash none of them is open, and a
// player who comes back must not wait for the dead streams' leases to lapse.
func dropStreamLeases(ctx context.Context, rdb redis.UniversalClient, prefix string) error {
	drop := func(ctx context.Context, c *redis.Client) error {
		for _, pattern := range []string{prefix + "match:match:streams:*", prefix + "lobby:streams:*"} {
			iter := c.Scan(ctx, 0, pattern, 256).Iterator()
			for iter.Next(ctx) {
				if err := c.Del(ctx, iter.Val()).Err(); err != nil {
					return fmt.Errorf("drop stream leases: %w", err)
				}
			}
			if err := iter.Err(); err != nil {
				return fmt.Errorf("drop stream leases: %w", err)
			}
		}
		return nil
	}
	if c, ok := rdb.(*redis.ClusterClient); ok { // each primary's keys
		return c.ForEachMaster(ctx, drop)
	}
	return drop(ctx, rdb.(*redis.Client))
}

// BusyError is Start's refusal when another process holds the data
// directory; its Error is English, and a command words it in the player's
// language (cli.Env.StartError).
type BusyError struct {
	Dir string
	PID int // the process holding it, 0 when unknown
	err error
}

func (e *BusyError) Error() string {
	who := "another tabuleiro command"
	if e.PID > 0 {
		who += " (process " + strconv.Itoa(e.PID) + ")"
	}
	return who + " is using the data directory " + e.Dir + ", and one command at a time runs on a data directory. " +
		"Quit it, reach it with --server ADDR if it is `tabuleiro serve`, or give this command another --data-dir."
}

func (e *BusyError) Unwrap() error { return e.err }

// busy is err as a *BusyError about the data directory dir when err says
// that another process holds dir or a directory in it; else err.
func busy(dir string, err error) error {
	var held *dirlock.BusyError
	if errors.As(err, &held) {
		return &BusyError{Dir: dir, PID: held.PID, err: err}
	}
	return err
}

// DefaultPasskeys is the relying party of a server listening on addr
// (HOST:PORT) when none is given: its own origin. WebAuthn takes no IP
// address as a relying-party ID, so a server on a loopback or unspecified
// address is "localhost", with the origin http://localhost:PORT (a secure
// context for browsers, as every http://localhost is); a server on a
// host name is that name over http and https.
func DefaultPasskeys(addr string) (rpID string, origins []string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil
	}
	if ip, err := netip.ParseAddr(host); host == "" || err == nil && (ip.IsLoopback() || ip.IsUnspecified()) || host == "localhost" {
		return "localhost", []string{"http://localhost:" + port}
	} else if err == nil {
		return "", nil // another IP address: no relying party can be derived
	}
	return host, []string{"http://" + net.JoinHostPort(host, port), "https://" + net.JoinHostPort(host, port)}
}
