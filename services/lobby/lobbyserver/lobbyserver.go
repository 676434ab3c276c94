// Package lobbyserver builds the lobby service from its dependencies: the
// one constructor that both cmd/lobby and the one-process mode call.
package lobbyserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"

	"tabuleiro.dev/migrations"
	"tabuleiro.dev/pkg/engine/games"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/devices"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/passkeys"
	"tabuleiro.dev/services/lobby/internal/passwd"
	"tabuleiro.dev/services/lobby/internal/rooms"
	"tabuleiro.dev/services/lobby/internal/rpc"
	"tabuleiro.dev/services/lobby/internal/sessions"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// MatchCreator creates matches (the match.v1 client, see NewMatchClient).
type MatchCreator = lobby.MatchCreator

// Deps are the lobby's dependencies.
type Deps struct {
	Redis redis.UniversalClient
	// DB is the PostgreSQL of players, ratings and finished games.
	DB *pgxpool.Pool
	// SQLite, set instead of DB, holds them in an embedded SQLite
	// database opened with migrations.OpenSQLite (the one-process mode).
	SQLite   *sql.DB
	Issuer   *auth.Issuer
	Verifier *auth.Verifier
	Matches  MatchCreator
	Logger   *slog.Logger
	// Bot, if set, is the bot service that reviews finished games
	// (LobbyService.ReviewGame); nil: reviews are unavailable.
	Bot botv1.BotServiceClient
}

// Config tunes the lobby. Zero values take the defaults of each part.
type Config struct {
	RedisPrefix    string        // default "tabuleiro:lobby:"
	TokenTTL       time.Duration // default 24 h
	RefreshTTL     time.Duration // a refresh token's life, default 30 days
	BotOfferAfter  time.Duration // default 20 s
	RatingInterval time.Duration // how often ratings are processed, default 1 s
	Matchmaking    matchmaking.Config
	Rooms          rooms.Config
	// RoomPoll is WatchRoom's fallback re-read besides room change events,
	// default 5 s.
	RoomPoll time.Duration
	// Limits are the per-client-address rates (SignInGuest, RefreshToken,
	// CreateRoom, JoinRoom by invite code, PlayBot); zero rules take
	// DefaultLimits. Unlimited turns every per-address rate off (tests and
	// load generators that call from one address).
	Limits    Limits
	Unlimited bool
	// ExemptLoopback exempts clients on a loopback address from the
	// per-address rates (the one-process mode: its own terminal client and
	// replays); the per-player caps still apply.
	ExemptLoopback bool
	// Exempt are client addresses the per-address rates do not apply to
	// (LOBBY_RATE_LIMIT_EXEMPT).
	Exempt []netip.Prefix
	// TrustedProxies are the proxies in front (the edge) whose
	// x-forwarded-for header names the client address.
	TrustedProxies []netip.Prefix
	// MaxStreams caps each player's open FindMatch and WatchRoom streams,
	// across instances (default 8; negative: no cap).
	MaxStreams int
	// MaxBotMatches caps a player's live bot games when
	// Matchmaking.ConcurrentMatches allows several live matches (default
	// 3; negative: no cap).
	MaxBotMatches int
	// Argon2 are the parameters of new account password hashes (default
	// OWASP's minimum for argon2id: 19 MiB, 2 passes, 1 thread).
	Argon2 passwd.Params
	// Guesses limit wrong account passwords per (account, client address),
	// per account and per address; zero fields take
	// accounts.DefaultGuessLimits.
	Guesses accounts.GuessLimits
	// Passkeys is the WebAuthn relying party (its ID, the origins whose
	// pages may use passkeys, the challenges' life); an empty RPID turns
	// passkeys off.
	Passkeys PasskeyConfig
	// DeviceURL is the approval page of device sign-ins (the web client's
	// #/device, "https://play.example/#/device"); empty: the page at the
	// address each device called. DevicePoll is the polling interval a
	// device sign-in starts with (default 5 s).
	DeviceURL  string
	DevicePoll time.Duration
	// roomsReady, if set (tests), is called once Run's room event
	// subscription is live.
	roomsReady func()
}

// PasskeyConfig is the WebAuthn relying party of passkeys.
type PasskeyConfig = passkeys.Config

// Limits are the lobby's per-client-address rates.
type Limits = rpc.Limits

// DefaultLimits are the production rates per client address.
func DefaultLimits() Limits { return rpc.DefaultLimits() }

// Server is a lobby instance.
type Server struct {
	rpc    *rpc.Server
	mm     *matchmaking.Matchmaker
	rooms  *rooms.Store
	store  *sqlstore.Store
	cfg    Config
	logger *slog.Logger
}

// New applies the lobby's migrations and builds a server.
func New(ctx context.Context, d Deps, cfg Config) (*Server, error) {
	var store *sqlstore.Store
	if d.SQLite != nil {
		if _, err := migrations.UpSQLite(ctx, d.SQLite); err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		store = sqlstore.NewSQLite(d.SQLite, glicko.Default(), nil)
	} else {
		db := stdlib.OpenDBFromPool(d.DB)
		defer func(db *sql.DB) { _ = db.Close() }(db)
		if _, err := migrations.Up(ctx, db); err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		store = sqlstore.NewPostgres(d.DB, glicko.Default(), nil)
	}
	if cfg.RedisPrefix == "" {
		cfg.RedisPrefix = "tabuleiro:lobby:"
	}
	if cfg.RatingInterval == 0 {
		cfg.RatingInterval = time.Second
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	// Every match is created with its accounts' seats named by their
	// usernames (rpc.NamedMatches).
	matches := rpc.NamedMatches(d.Matches, store)
	// The live lists come from the match service (its ListMatches); a
	// MatchCreator that cannot list (a test double) lists nothing.
	lister, _ := d.Matches.(rpc.LiveLister)
	mcfg := cfg.Matchmaking
	mcfg.Prefix = cfg.RedisPrefix
	if cfg.BotOfferAfter != 0 {
		mcfg.BotOfferAfter = cfg.BotOfferAfter
	}
	if lister != nil && mcfg.LiveMatches == nil {
		mcfg.LiveMatches = func(ctx context.Context, playerID string, matchIDs ...string) ([]string, error) {
			ms, err := lister.ListMatches(ctx, playerID, matchIDs...)
			ids := make([]string, 0, len(ms))
			for _, m := range ms {
				ids = append(ids, m.GetMatchId())
			}
			return ids, err
		}
	}
	mm := matchmaking.New(d.Redis, games.Lookup, matches, mcfg)
	rcfg := cfg.Rooms
	rcfg.Prefix = cfg.RedisPrefix
	rcfg.Reserver = mm
	if rcfg.LiveMatches == nil {
		rcfg.LiveMatches = mcfg.LiveMatches
	}
	rs := rooms.New(d.Redis, games.Lookup, matches, rcfg)
	limits, def := cfg.Limits, rpc.DefaultLimits()
	for _, r := range []struct{ got, def *ratelimit.Rule }{
		{&limits.SignIn, &def.SignIn}, {&limits.Password, &def.Password}, {&limits.Refresh, &def.Refresh}, {&limits.CreateRoom, &def.CreateRoom},
		{&limits.InviteLookup, &def.InviteLookup}, {&limits.PlayBot, &def.PlayBot}, {&limits.Review, &def.Review},
		{&limits.Device, &def.Device}, {&limits.Profile, &def.Profile},
	} {
		if r.got.Off() {
			*r.got = *r.def
		}
	}
	var limiter *ratelimit.Limiter
	if !cfg.Unlimited {
		limiter = ratelimit.New(d.Redis, cfg.RedisPrefix)
	}
	// Wrong passwords are limited even when the per-address rates are
	// off: they guard accounts, not the server's load.
	guesses := accounts.NewGuesses(d.Redis, cfg.RedisPrefix, cfg.Guesses)
	ceremonies, err := passkeys.New(d.Redis, cfg.RedisPrefix, cfg.Passkeys)
	if err != nil {
		return nil, err
	}
	devs := devices.New(d.Redis, cfg.RedisPrefix)
	if cfg.DevicePoll > 0 {
		devs.Interval = cfg.DevicePoll
	}
	if cfg.MaxStreams == 0 {
		cfg.MaxStreams = 8
	}
	if cfg.MaxBotMatches == 0 {
		cfg.MaxBotMatches = 3
	}
	maxBots := 0
	if mcfg.ConcurrentMatches && cfg.MaxBotMatches > 0 {
		maxBots = cfg.MaxBotMatches
	}
	s := &Server{
		rpc: rpc.New(rpc.Deps{
			Rooms: rs, Matchmaker: mm, Store: store, Live: lister,
			Matches: matches, Issuer: d.Issuer, Verifier: d.Verifier, Lookup: games.Lookup,
			TokenTTL: cfg.TokenTTL, RefreshTTL: cfg.RefreshTTL,
			Sessions: sessions.New(d.Redis, cfg.RedisPrefix), RoomPoll: cfg.RoomPoll,
			Limiter: limiter, Limits: limits, ExemptLoopback: cfg.ExemptLoopback, Exempt: cfg.Exempt,
			TrustedProxies: cfg.TrustedProxies, Argon2: cfg.Argon2, Guesses: guesses,
			Devices: devs, DeviceURL: cfg.DeviceURL,
			Streams:       ratelimit.NewStreams(d.Redis, cfg.RedisPrefix, "lobby streams", max(cfg.MaxStreams, 0)),
			MaxBotMatches: maxBots, BotStarts: ratelimit.NewStreams(d.Redis, cfg.RedisPrefix, "PlayBot calls in progress", 1),
			Reviewer: reviewer(d.Bot), Passkeys: ceremonies,
		}),
		mm: mm, rooms: rs, store: store, cfg: cfg, logger: d.Logger,
	}
	return s, nil
}

// Register adds the LobbyService to a gRPC server.
func (s *Server) Register(g *grpc.Server) { lobbyv1.RegisterLobbyServiceServer(g, s.rpc) }

// AuthPolicy is the lobby's token policy: sign-in, refresh and the variant
// list are public.
func AuthPolicy() auth.Policy { return auth.Policy{Public: rpc.PublicMethods} }

// Run runs the lobby's background work until ctx ends: pairing waves and
// result delivery, room change events for WatchRoom, and the ratings
// processor.
func (s *Server) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	var mmErr, roomsErr error
	wg.Go(func() { mmErr = s.mm.Run(ctx) })
	wg.Go(func() { roomsErr = s.rooms.Run(ctx, s.cfg.roomsReady) })
	wg.Go(func() {
		s.store.RunRatings(ctx, s.cfg.RatingInterval, func(err error) {
			s.logger.WarnContext(ctx, "rating processing failed", "err", err)
		})
	})
	wg.Wait()
	return errors.Join(mmErr, roomsErr)
}

// NewMatchClient returns the MatchCreator calling match.v1 through c, for
// callers outside this module (the one-process mode of the tabuleiro
// command) that cannot import internal/matchclient.
func NewMatchClient(c matchv1.MatchServiceClient) MatchCreator { return matchclient.New(c) }

// reviewer is the bot client as the server's Reviewer: nil for none (an
// interface holding a nil client is not nil).
func reviewer(c botv1.BotServiceClient) rpc.Reviewer {
	if c == nil {
		return nil
	}
	return c
}
