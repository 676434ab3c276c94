// Package matchserver builds the match service: its domain over Redis, its
// gRPC handlers, the deadline sweeper and the results recorder. Both
// cmd/match and the one-process mode call New.
package matchserver

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	"tabuleiro.dev/migrations"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/match/internal/botclient"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/rpc"
	"tabuleiro.dev/services/match/internal/sqlstore"
)

// Deps are the match service's stores and clients.
type Deps struct {
	Redis *redis.Client
	// DB receives finished games in PostgreSQL (driver "pgx"); nil (and
	// no SQLite) runs no recorder (results wait in the outbox for an
	// instance that has one).
	DB *sql.DB
	// SQLite, set instead of DB, receives them in an embedded SQLite
	// database opened with migrations.OpenSQLite (the one-process mode).
	SQLite *sql.DB
	// Bot plays bot seats; nil refuses matches with a bot.
	Bot    match.Bot
	Logger *slog.Logger
	Now    func() time.Time // nil: time.Now
}

// Config tunes the service.
type Config struct {
	// KeyPrefix is put before every Redis key ("tabuleiro:").
	KeyPrefix string
	// InstanceID names this instance as an outbox consumer; unique.
	InstanceID string
	// Migrate applies the migrations at start-up (Run).
	Migrate  bool
	Match    match.Config
	Store    redisstore.Options
	Recorder recorder.Config
	// MaxStreams caps each player's open Play, Follow and Watch streams
	// together, across instances (default 16; negative: no cap);
	// MaxAddressStreams each client address's (an IPv6 /64 as one;
	// default 200; negative: no cap).
	MaxStreams        int
	MaxAddressStreams int
	// Limits are each player's rates: unary calls (per player across
	// instances) and messages per Play stream; zero rules take DefaultLimits. Unlimited turns both off
	// (MaxStreams stays). ExemptLoopback exempts callers on a loopback
	// address from the call rate (the one-process mode's own clients).
	Limits         Limits
	Unlimited      bool
	ExemptLoopback bool
	// TrustedProxies are the proxies in front whose X-Forwarded-For names
	// the client (see clientaddr): only a client that is this host itself
	// is exempt under ExemptLoopback, not every call through a proxy on it.
	TrustedProxies []netip.Prefix
	// FollowHeartbeat is how long a Follow stream stays silent before the
	// server sends a heartbeat; 0 means 15 s.
	FollowHeartbeat time.Duration
	// ProbeEvery is how often a seat's stream is probed for its round
	// trip (lag compensation); 0 means rpc.DefaultProbeEvery (2 s),
	// negative none.
	ProbeEvery time.Duration
}

// Limits are the match service's rates for a player.
type Limits = rpc.Limits

// DefaultLimits are the production rates: 60 calls at once, then 20 a
// second per player; 100 messages at once, then 10 a second per Play
// stream (plies accepted as the match's next not counted).
func DefaultLimits() Limits { return rpc.DefaultLimits() }

// LiveTTL is how long an ongoing match's Redis keys must live after its
// last write (redisstore.Options.LiveTTL) for the match windows m sets: a
// day past the longest a match may wait (reconnection, first ply, an
// untimed game's wait), so that an idle game is ruled, not lost; 0 (the
// store's default) when m sets none.
func LiveTTL(m match.Config) time.Duration {
	w := max(m.ReconnectWindow, m.FirstPlyTimeout, m.UntimedBotWait)
	if w <= 0 {
		return 0
	}
	return w + 24*time.Hour
}

// Server is a match service instance.
type Server struct {
	d     Deps
	cfg   Config
	store *redisstore.Store
	hub   *redisstore.Hub
	svc   *match.Service
	rpc   *rpc.Server
	drain chan struct{}
	once  sync.Once
}

// New builds an instance; Run starts it.
func New(ctx context.Context, d Deps, cfg Config) *Server {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	cfg.Store.Prefix = cfg.KeyPrefix
	s := &Server{d: d, cfg: cfg, drain: make(chan struct{})}
	s.store = redisstore.New(d.Redis, cfg.Store)
	s.hub = redisstore.NewHub(ctx, s.store, d.Logger)
	s.svc = match.NewService(match.Deps{
		Store: s.store, Hub: s.hub, Rules: match.Registry{}, Bot: d.Bot, Logger: d.Logger, Now: d.Now,
		DealBanqi: match.DealBanqi,
	}, cfg.Match)
	s.hub.OnCommit(s.svc.Observe)
	s.hub.Resync = s.svc.Config().ResyncInterval
	s.rpc = rpc.NewServer(s.svc, d.Now, s.drain)
	if cfg.MaxStreams == 0 {
		cfg.MaxStreams = 16
	}
	if cfg.MaxAddressStreams == 0 {
		cfg.MaxAddressStreams = 200
	}
	var perPlayer, perAddress *ratelimit.Streams
	if cfg.MaxStreams > 0 {
		perPlayer = ratelimit.NewStreams(d.Redis, cfg.KeyPrefix+"match:", "match streams", cfg.MaxStreams)
	}
	if cfg.MaxAddressStreams > 0 {
		perAddress = ratelimit.NewStreams(d.Redis, cfg.KeyPrefix+"match:", "match streams from this address", cfg.MaxAddressStreams)
	}
	s.rpc.CapStreams(perPlayer, perAddress)
	if !cfg.Unlimited {
		limits, def := cfg.Limits, rpc.DefaultLimits()
		for _, r := range []struct{ got, def *ratelimit.Rule }{
			{&limits.Calls, &def.Calls}, {&limits.PlayMessages, &def.PlayMessages},
			{&limits.StreamOpens, &def.StreamOpens}, {&limits.AddressStreamOpens, &def.AddressStreamOpens},
		} {
			if r.got.Off() {
				*r.got = *r.def
			}
		}
		s.rpc.Limiter, s.rpc.Limits = ratelimit.New(d.Redis, cfg.KeyPrefix+"match:"), limits
		s.rpc.ExemptLoopback = cfg.ExemptLoopback
	}
	s.rpc.TrustedProxies = cfg.TrustedProxies
	s.rpc.Heartbeat = cfg.FollowHeartbeat
	s.rpc.ProbeEvery = cfg.ProbeEvery
	return s
}

// Register adds the MatchService to g.
func (s *Server) Register(g *grpc.Server) { matchv1.RegisterMatchServiceServer(g, s.rpc) }

// ServiceOnly lists the RPCs only a service credential may call, for the
// auth policy.
func ServiceOnly() []string { return rpc.ServiceOnly() }

// Drain tells every open stream to reconnect elsewhere; Run does it when
// its ctx ends.
func (s *Server) Drain() { s.once.Do(func() { close(s.drain) }) }

// Run migrates (if configured) and runs the hub, the deadline sweeper and
// the recorder until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	results := s.d.DB
	if s.cfg.Migrate && s.d.DB != nil {
		if _, err := migrations.Up(ctx, s.d.DB); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if s.d.SQLite != nil {
		results = s.d.SQLite
		if s.cfg.Migrate {
			if _, err := migrations.UpSQLite(ctx, s.d.SQLite); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
		}
	}
	// The hub, the sweeper and the recorder stop only after the streams
	// were told to drain: on the caller's context the hub could close a
	// stream's feed before the stream sent its drain notice.
	outer := ctx
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	run := func(f func(context.Context) error) {
		wg.Go(func() {
			if err := f(ctx); err != nil {
				errs <- err
				cancel()
			}
		})
	}
	run(s.hub.Run)
	run(s.svc.Run)
	if results != nil {
		rc := s.cfg.Recorder
		if rc.Consumer == "" {
			rc.Consumer = s.cfg.InstanceID
		}
		run(recorder.New(s.store, sqlstore.New(results), rc, s.d.Logger).Run)
	}
	select {
	case <-outer.Done():
	case <-ctx.Done(): // a part failed
	}
	s.Drain()
	cancel()
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// NewBotClient returns the Bot calling bot.v1 through c, for callers
// outside this module (the one-process mode of the tabuleiro command) that
// cannot import internal/botclient.
func NewBotClient(c botv1.BotServiceClient) match.Bot { return botclient.New(c) }
