// Package config reads the lobby's configuration from LOBBY_* environment
// variables.
package config

import (
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/grpcserve"
)

// Config is the lobby's configuration.
type Config struct {
	GRPCAddr    string // LOBBY_GRPC_ADDR, default ":8080"
	RedisURL    string // LOBBY_REDIS_URL, required
	DatabaseURL string // LOBBY_DATABASE_URL, required
	MatchAddr   string // LOBBY_MATCH_ADDR, required: match.v1 target, e.g. dns:///match:8080 (round_robin over its addresses)
	// BotAddr (LOBBY_BOT_ADDR, optional): the bot.v1 target that reviews
	// finished games (ReviewGame), e.g. dns:///bot:8080; empty: reviews
	// are unavailable.
	BotAddr  string
	TokenKey []byte // LOBBY_TOKEN_KEY, required (auth.ParseKey format, shared by the services)
	// PreviousTokenKeys (LOBBY_TOKEN_KEY_PREVIOUS, optional, comma-separated):
	// keys whose tokens are still accepted while the token key rotates.
	PreviousTokenKeys [][]byte
	TokenTTL          time.Duration // LOBBY_TOKEN_TTL, default 24h
	// RefreshTTL (LOBBY_REFRESH_TTL, default 720h: 30 days) is a refresh
	// token's life: a player who does not refresh within it signs in
	// again.
	RefreshTTL    time.Duration
	BotOfferAfter time.Duration // LOBBY_BOT_OFFER_AFTER, default 20s
	// TicketTTL (LOBBY_TICKET_TTL, default 15s) is how long a queued
	// ticket whose stream is gone (its instance died) stays pairable.
	TicketTTL       time.Duration
	ShutdownTimeout time.Duration // LOBBY_SHUTDOWN_TIMEOUT, default 10s
	// HealthCheckInterval (LOBBY_HEALTH_CHECK_INTERVAL, default 2s) is how often
	// health checks Redis: NOT_SERVING while it does not answer.
	HealthCheckInterval time.Duration
	LogLevel            slog.Level // LOBBY_LOG_LEVEL, default INFO
	// TLSCertFile and TLSKeyFile (LOBBY_TLS_CERT_FILE, LOBBY_TLS_KEY_FILE)
	// serve TLS when set, both or neither; plaintext otherwise.
	TLSCertFile, TLSKeyFile string
	// TLSCAFile (LOBBY_TLS_CA_FILE): calls to match use TLS trusting this
	// PEM CA when set; plaintext otherwise.
	TLSCAFile string
	// TrustedProxies (LOBBY_TRUSTED_PROXIES, comma-separated CIDRs or
	// addresses): the proxies in front whose x-forwarded-for header names
	// the client address for the per-address rate limits; empty: the
	// peer's own address.
	TrustedProxies []netip.Prefix
	// RateLimitsOff (LOBBY_RATE_LIMITS_OFF, default false) turns off the
	// per-client-address rates (guest sign-ins, token refreshes, rooms
	// created, invite lookups, bot games started), for load generators
	// and test clusters whose players all call from one address; the
	// per-player caps on streams and bot games stay.
	RateLimitsOff bool
	// RateLimitExempt (LOBBY_RATE_LIMIT_EXEMPT, comma-separated CIDRs or
	// addresses): client addresses the per-address rates do not apply to
	// (a load generator's machine, a monitoring prober), while every
	// other address keeps them: load-test a public deployment this way
	// rather than with LOBBY_RATE_LIMITS_OFF.
	RateLimitExempt []netip.Prefix
	// CORSOrigins (LOBBY_CORS_ORIGINS): comma-separated origins whose pages
	// may call the API cross-origin over gRPC-Web or Connect
	// ("https://play.example.com", or "*"); empty (the default) means
	// same-origin only.
	CORSOrigins []string
	// MixedConnections (LOBBY_MIXED_CONNECTIONS, default false) serves every
	// plaintext HTTP/2 (h2c) connection by net/http, for a proxy in front
	// that sends native gRPC and the browsers' gRPC-Web or Connect calls on
	// one of its connections. By default a plaintext connection whose first
	// call is native gRPC goes to grpc-go's own transport, which holds an
	// idle stream in less memory and answers native gRPC only.
	MixedConnections bool
	// WebAuthnRPID (LOBBY_WEBAUTHN_RP_ID): the WebAuthn relying-party ID
	// passkeys are bound to, the site's domain ("example.com"); empty (the
	// default) turns passkeys off. Changing it orphans every passkey.
	WebAuthnRPID string
	// WebAuthnOrigins (LOBBY_WEBAUTHN_ORIGINS, comma-separated, required
	// with LOBBY_WEBAUTHN_RP_ID): the origins whose pages may register and
	// use passkeys ("https://play.example.com"); each host must be the
	// relying-party ID or a subdomain of it.
	WebAuthnOrigins []string
	// PasskeyChallengeTTL (LOBBY_PASSKEY_CHALLENGE_TTL, default 5m): how
	// long a passkey challenge may be answered (each is single-use).
	PasskeyChallengeTTL time.Duration
	// DeviceURL (LOBBY_DEVICE_URL): the web client's device approval page
	// that `tabuleiro login` shows ("https://play.example.com/#/device");
	// empty: the page at the address the terminal called.
	DeviceURL string
}

// Load reads the configuration, reporting every problem at once.
func Load(getenv func(string) string) (Config, error) {
	env := envconfig.New("LOBBY_", getenv)
	cfg := Config{
		GRPCAddr:            env.String("GRPC_ADDR", ":8080"),
		RedisURL:            env.URL("REDIS_URL", ""),
		DatabaseURL:         env.URL("DATABASE_URL", ""),
		MatchAddr:           env.Required("MATCH_ADDR"),
		BotAddr:             env.String("BOT_ADDR", ""),
		TokenTTL:            env.Duration("TOKEN_TTL", 24*time.Hour),
		RefreshTTL:          env.Duration("REFRESH_TTL", 30*24*time.Hour),
		BotOfferAfter:       env.Duration("BOT_OFFER_AFTER", 20*time.Second),
		TicketTTL:           env.Duration("TICKET_TTL", 15*time.Second),
		ShutdownTimeout:     env.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		HealthCheckInterval: env.Duration("HEALTH_CHECK_INTERVAL", 2*time.Second),
		LogLevel:            env.LogLevel("LOG_LEVEL", slog.LevelInfo),
		TLSCertFile:         env.String("TLS_CERT_FILE", ""),
		TLSKeyFile:          env.String("TLS_KEY_FILE", ""),
		TLSCAFile:           env.String("TLS_CA_FILE", ""),
		RateLimitsOff:       env.Bool("RATE_LIMITS_OFF", false),
		MixedConnections:    env.Bool("MIXED_CONNECTIONS", false),
		WebAuthnRPID:        env.String("WEBAUTHN_RP_ID", ""),
		PasskeyChallengeTTL: env.Duration("PASSKEY_CHALLENGE_TTL", 5*time.Minute),
		DeviceURL:           env.String("DEVICE_URL", ""),
	}
	env.Func("TOKEN_KEY", true, func(s string) error {
		k, err := auth.ParseKey(s)
		cfg.TokenKey = k
		return err
	})
	env.Func("RATE_LIMIT_EXEMPT", false, func(s string) (err error) {
		cfg.RateLimitExempt, err = clientaddr.ParsePrefixes(s)
		return err
	})
	env.Func("TRUSTED_PROXIES", false, func(s string) error {
		p, err := clientaddr.ParsePrefixes(s)
		cfg.TrustedProxies = p
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
	env.Func("WEBAUTHN_ORIGINS", false, func(s string) error {
		for _, o := range strings.Split(s, ",") {
			o = strings.TrimSpace(o)
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
				return fmt.Errorf("%q is not an origin (https://host[:port])", o)
			}
			cfg.WebAuthnOrigins = append(cfg.WebAuthnOrigins, strings.TrimSuffix(o, "/"))
		}
		return nil
	})
	if cfg.WebAuthnRPID != "" && len(cfg.WebAuthnOrigins) == 0 {
		env.Errorf("WEBAUTHN_ORIGINS", "is required with %s", env.Name("WEBAUTHN_RP_ID"))
	}
	if cfg.RefreshTTL < cfg.TokenTTL {
		env.Errorf("REFRESH_TTL", "must be at least %s (%v), or a token outlives its refresh token", env.Name("TOKEN_TTL"), cfg.TokenTTL)
	}
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		env.Errorf("TLS_KEY_FILE", "set it together with %s, or neither", env.Name("TLS_CERT_FILE"))
	}
	return cfg, env.Err()
}
