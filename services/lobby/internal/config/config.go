// Package config reads the lobby's configuration from LOBBY_* environment
// variables.
package config

import (
	"log/slog"
	"time"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/envconfig"
)

// Config is the lobby's configuration.
type Config struct {
	GRPCAddr        string        // LOBBY_GRPC_ADDR, default ":8080"
	RedisURL        string        // LOBBY_REDIS_URL, required
	DatabaseURL     string        // LOBBY_DATABASE_URL, required
	MatchAddr       string        // LOBBY_MATCH_ADDR, required: match.v1 host:port
	AuthKey         []byte        // LOBBY_AUTH_KEY, required (auth.ParseKey format)
	TokenTTL        time.Duration // LOBBY_TOKEN_TTL, default 24h
	BotOfferAfter   time.Duration // LOBBY_BOT_OFFER_AFTER, default 20s
	ShutdownTimeout time.Duration // LOBBY_SHUTDOWN_TIMEOUT, default 10s
	LogLevel        slog.Level    // LOBBY_LOG_LEVEL, default INFO
}

// Load reads the configuration, reporting every problem at once.
func Load(getenv func(string) string) (Config, error) {
	env := envconfig.New("LOBBY_", getenv)
	cfg := Config{
		GRPCAddr:        env.String("GRPC_ADDR", ":8080"),
		RedisURL:        env.URL("REDIS_URL", ""),
		DatabaseURL:     env.URL("DATABASE_URL", ""),
		MatchAddr:       env.Required("MATCH_ADDR"),
		TokenTTL:        env.Duration("TOKEN_TTL", 24*time.Hour),
		BotOfferAfter:   env.Duration("BOT_OFFER_AFTER", 20*time.Second),
		ShutdownTimeout: env.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		LogLevel:        env.LogLevel("LOG_LEVEL", slog.LevelInfo),
	}
	env.Func("AUTH_KEY", true, func(s string) error {
		k, err := auth.ParseKey(s)
		cfg.AuthKey = k
		return err
	})
	return cfg, env.Err()
}
