// Package config loads the match service's configuration from MATCH_*
// environment variables.
package config

import (
	"log/slog"
	"net/netip"
	"net/url"
	"time"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/grpcserve"
)

// Config is the match service's configuration.
type Config struct {
	GRPCAddr string // MATCH_GRPC_ADDR, default ":8080"
	RedisURL string // MATCH_REDIS_URL, required
	// RedisWaitReplicas (MATCH_REDIS_WAIT_REPLICAS, default 0: off): every
	// commit of a match (a ply, a resignation, a timeout) waits, with Redis
	// WAIT, until this many replicas hold it before it is acknowledged and
	// its events are sent, so that a Sentinel failover loses no
	// acknowledged ply (deploy/README.md, "Redis high availability"). Set
	// it below the number of replicas, or writes stop when one is down.
	RedisWaitReplicas int
	// RedisWaitTimeout (MATCH_REDIS_WAIT_TIMEOUT, default 1s) bounds that
	// wait: past it the commit stays unacknowledged and the client is told
	// UNAVAILABLE (retrying the same ply is safe).
	RedisWaitTimeout time.Duration
	// RecorderWaitReplicas (MATCH_RECORDER_WAIT_REPLICAS; default 1 when
	// MATCH_REDIS_URL names Sentinels, 0 otherwise): a finished game is
	// written to PostgreSQL only once that many Redis replicas hold its
	// end, so that a failover never brings back in progress a game whose
	// result is recorded. Set it to the replicas Sentinel may promote.
	RecorderWaitReplicas int
	// RedisJSON (MATCH_REDIS_JSON, default false) writes matches' states,
	// plies and events to Redis as JSON instead of the compact binary
	// encoding. Every version since the binary encoding reads both; set it
	// while upgrading from an older version (which reads only JSON) until
	// no old instance runs, then unset it. It implies
	// RedisCompat.
	RedisJSON bool
	// RedisCompat (MATCH_REDIS_COMPAT, default false) writes what versions
	// before the events list read: new matches' events in a Redis stream
	// instead of a list (every version since reads both, and a match goes
	// on in the form it was created with), and live matches' summaries in
	// the live-match index (versions since derive them from the state).
	// Set it while upgrading from such a version until no old instance
	// runs, then unset it.
	RedisCompat bool
	DatabaseURL string // MATCH_DATABASE_URL, required
	TokenKey    []byte // MATCH_TOKEN_KEY, required (base64, shared with the lobby)
	// PreviousTokenKeys (MATCH_TOKEN_KEY_PREVIOUS, optional, comma-separated):
	// keys whose tokens are still accepted while the token key rotates.
	PreviousTokenKeys [][]byte
	BotAddr           string // MATCH_BOT_ADDR, optional (e.g. dns:///bot:8080, round_robin): without it bot seats are refused
	KeyPrefix         string // MATCH_KEY_PREFIX, default "tabuleiro:"
	// LobbyKeyPrefix (MATCH_LOBBY_KEY_PREFIX, default "tabuleiro:lobby:",
	// the lobby's): where the lobby keeps its sign-ins in the same Redis, so
	// that a player token of a signed-out or revoked sign-in is refused
	// here too; empty: tokens are not checked against sign-ins.
	LobbyKeyPrefix  string
	InstanceID      string        // MATCH_INSTANCE_ID, default: random at start-up
	ReconnectWindow time.Duration // MATCH_RECONNECT_WINDOW, default 60s
	FirstPlyTimeout time.Duration // MATCH_FIRST_PLY_TIMEOUT, default 30s
	// UntimedBotWait (MATCH_UNTIMED_BOT_WAIT, default 24h) replaces both
	// windows above for a match without a clock against a bot or between
	// two players at one device (a private room made with one_device):
	// nobody there waits on anyone else, so a closed tab or a first ply
	// made hours later ends nothing before it. A day, not the 30 days of
	// `tabuleiro serve` (one player's own server): on a public server it
	// bounds what one client address can keep open at its bot-game rate
	// (120 an hour per address, the lobby's PlayBot rate) to a day's worth.
	// Every ongoing match's Redis keys live the longest of the three plus
	// a day after its last write. 0: such matches get the windows above.
	UntimedBotWait time.Duration
	// SweepInterval (MATCH_SWEEP_INTERVAL, default 25ms) is the shortest
	// gap between two sweeps of the deadlines: the sweeping replica waits
	// for the earliest deadline it knows (woken when a nearer one is
	// written, by any replica), and polls once a second when idle.
	SweepInterval   time.Duration
	PresenceTTL     time.Duration // MATCH_PRESENCE_TTL, default 10s: a seat whose instance stops renewing its lease this long is disconnected
	ShutdownTimeout time.Duration // MATCH_SHUTDOWN_TIMEOUT, default 10s
	// HealthCheckInterval (MATCH_HEALTH_CHECK_INTERVAL, default 2s) is how often
	// health checks Redis: NOT_SERVING while it does not answer.
	HealthCheckInterval time.Duration
	LogLevel            slog.Level // MATCH_LOG_LEVEL, default info
	// TLSCertFile and TLSKeyFile (MATCH_TLS_CERT_FILE, MATCH_TLS_KEY_FILE)
	// serve TLS when set, both or neither; plaintext otherwise.
	TLSCertFile, TLSKeyFile string
	// TLSCAFile (MATCH_TLS_CA_FILE): calls to bot use TLS trusting this PEM
	// CA when set; plaintext otherwise.
	TLSCAFile string
	// CallRate and CallBurst (MATCH_CALL_RATE, default 20 a second;
	// MATCH_CALL_BURST, default 60) limit each player's calls across
	// instances: unary calls (SubmitPly, AnswerProbe, GetMatch,
	// ListLegalPlies, Resign, the draw calls, InviteSpectator); past them
	// a call gets RESOURCE_EXHAUSTED with a retry delay. A person playing,
	// or a client retrying, makes a few a ply. Service credentials (the
	// lobby) are not limited; streams are capped by their number (16 a
	// player).
	CallRate, CallBurst int
	// PlayMessageRate and PlayMessageBurst (MATCH_PLAY_MESSAGE_RATE,
	// default 10 a second; MATCH_PLAY_MESSAGE_BURST, default 100) limit
	// the messages a client sends on one Play stream, counted in memory
	// (no Redis call per message); a ply accepted as the match's next is
	// not counted (the game bounds those). Past them the stream ends with
	// RESOURCE_EXHAUSTED. A client sends a probe answer every 2 s, and
	// pings, resent plies and actions.
	PlayMessageRate, PlayMessageBurst int
	// MaxStreams (MATCH_MAX_STREAMS, default 16) caps each player's open
	// Play, Follow and Watch streams across instances;
	// MaxAddressStreams (MATCH_MAX_ADDRESS_STREAMS, default 200) each
	// client address's (an IPv6 /64 as one address), whoever signs in
	// there. Openings are rated besides: 30 at once then one a second a
	// player, 200 at once then ten a second an address.
	MaxStreams, MaxAddressStreams int
	// RateLimitsOff (MATCH_RATE_LIMITS_OFF, default false) turns off the
	// rates above, for load generators and tests that play one player
	// faster than a person; the caps on open streams stay.
	RateLimitsOff bool
	// TrustedProxies (MATCH_TRUSTED_PROXIES, comma-separated CIDRs or
	// addresses): the proxies in front (the edge) whose X-Forwarded-For
	// names the client address that per-address limits count against;
	// empty: the peer is the client.
	TrustedProxies []netip.Prefix
	// CORSOrigins (MATCH_CORS_ORIGINS): comma-separated origins whose pages may
	// call the API cross-origin over gRPC-Web or Connect
	// ("https://play.example.com", or "*"); empty (the default) means
	// same-origin only.
	CORSOrigins []string
	// MixedConnections (MATCH_MIXED_CONNECTIONS, default false) serves every
	// plaintext HTTP/2 (h2c) connection by net/http, for a proxy in front
	// that sends native gRPC and the browsers' gRPC-Web or Connect calls on
	// one of its connections. By default a plaintext connection whose first
	// call is native gRPC goes to grpc-go's own transport, which holds an
	// idle stream in less memory and answers native gRPC only.
	MixedConnections bool
}

// sentinelReplicas is RECORDER_WAIT_REPLICAS' default: 1 behind Sentinel
// (a URL with master_name), where a failover may promote a replica.
func sentinelReplicas(redisURL string) int {
	if u, err := url.Parse(redisURL); err == nil && u.Query().Has("master_name") {
		return 1
	}
	return 0
}

// Load reads the configuration through getenv and reports every problem
// at once.
func Load(getenv func(string) string) (Config, error) {
	env := envconfig.New("MATCH_", getenv)
	cfg := Config{
		GRPCAddr:             env.String("GRPC_ADDR", ":8080"),
		RedisURL:             env.Required("REDIS_URL"),
		RedisWaitReplicas:    env.IntRange("REDIS_WAIT_REPLICAS", 0, 0, 16),
		RedisWaitTimeout:     env.Duration("REDIS_WAIT_TIMEOUT", time.Second),
		RecorderWaitReplicas: env.IntRange("RECORDER_WAIT_REPLICAS", sentinelReplicas(getenv("MATCH_REDIS_URL")), 0, 16),
		RedisJSON:            env.Bool("REDIS_JSON", false),
		RedisCompat:          env.Bool("REDIS_COMPAT", false),
		DatabaseURL:          env.Required("DATABASE_URL"),
		BotAddr:              env.String("BOT_ADDR", ""),
		KeyPrefix:            env.String("KEY_PREFIX", "tabuleiro:"),
		LobbyKeyPrefix:       env.String("LOBBY_KEY_PREFIX", "tabuleiro:lobby:"),
		InstanceID:           env.String("INSTANCE_ID", ""),
		ReconnectWindow:      env.Duration("RECONNECT_WINDOW", 60*time.Second),
		FirstPlyTimeout:      env.Duration("FIRST_PLY_TIMEOUT", 30*time.Second),
		UntimedBotWait:       env.Duration("UNTIMED_BOT_WAIT", 24*time.Hour),
		SweepInterval:        env.Duration("SWEEP_INTERVAL", 25*time.Millisecond),
		PresenceTTL:          env.Duration("PRESENCE_TTL", 10*time.Second),
		ShutdownTimeout:      env.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		HealthCheckInterval:  env.Duration("HEALTH_CHECK_INTERVAL", 2*time.Second),
		LogLevel:             env.LogLevel("LOG_LEVEL", slog.LevelInfo),
		TLSCertFile:          env.String("TLS_CERT_FILE", ""),
		TLSKeyFile:           env.String("TLS_KEY_FILE", ""),
		TLSCAFile:            env.String("TLS_CA_FILE", ""),
		CallRate:             env.IntRange("CALL_RATE", 20, 1, 1_000_000),
		CallBurst:            env.IntRange("CALL_BURST", 60, 1, 1_000_000),
		PlayMessageRate:      env.IntRange("PLAY_MESSAGE_RATE", 10, 1, 1_000_000),
		PlayMessageBurst:     env.IntRange("PLAY_MESSAGE_BURST", 100, 1, 1_000_000),
		MaxStreams:           env.IntRange("MAX_STREAMS", 16, 1, 1_000_000),
		MaxAddressStreams:    env.IntRange("MAX_ADDRESS_STREAMS", 200, 1, 1_000_000),
		RateLimitsOff:        env.Bool("RATE_LIMITS_OFF", false),
		MixedConnections:     env.Bool("MIXED_CONNECTIONS", false),
	}
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		env.Errorf("TLS_KEY_FILE", "set it together with %s, or neither", env.Name("TLS_CERT_FILE"))
	}
	env.Func("TOKEN_KEY", true, func(s string) (err error) {
		cfg.TokenKey, err = auth.ParseKey(s)
		return err
	})
	env.Func("TRUSTED_PROXIES", false, func(s string) (err error) {
		cfg.TrustedProxies, err = clientaddr.ParsePrefixes(s)
		return err
	})
	env.Func("TOKEN_KEY_PREVIOUS", false, func(s string) (err error) {
		cfg.PreviousTokenKeys, err = auth.ParseKeys(s)
		return err
	})
	env.Func("CORS_ORIGINS", false, func(s string) (err error) {
		cfg.CORSOrigins, err = grpcserve.ParseOrigins(s)
		return err
	})
	if cfg.SweepInterval > 50*time.Millisecond {
		env.Errorf("SWEEP_INTERVAL", "must be at most 50ms so a flag falls within 100ms")
	}
	if cfg.RedisWaitTimeout <= 0 {
		env.Errorf("REDIS_WAIT_TIMEOUT", "must be positive")
	}
	if cfg.PresenceTTL < 3*time.Second {
		env.Errorf("PRESENCE_TTL", "must be at least 3s (leases are renewed every third of it)")
	}
	return cfg, env.Err()
}
