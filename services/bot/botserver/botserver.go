// Package botserver builds and runs the bot service: its configuration, its
// dependencies and its gRPC server. Both the bot's own main and the
// one-process mode of the tabuleiro command call it.
package botserver

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/bot/internal/limit"
	"tabuleiro.dev/services/bot/internal/rpc"
)

// Config is the bot service's configuration, from BOT_* variables.
type Config struct {
	GRPCAddr string // BOT_GRPC_ADDR, default ":8080"
	TokenKey []byte // BOT_TOKEN_KEY, required: the services' shared token key
	// PreviousTokenKeys (BOT_TOKEN_KEY_PREVIOUS, optional, comma-separated):
	// keys whose tokens are still accepted while the token key rotates.
	PreviousTokenKeys [][]byte
	ShutdownTimeout   time.Duration // BOT_SHUTDOWN_TIMEOUT, default 10s
	DrainDelay        time.Duration // BOT_DRAIN_DELAY, default 0
	LogLevel          slog.Level    // BOT_LOG_LEVEL, default INFO
	// TLSCertFile and TLSKeyFile (BOT_TLS_CERT_FILE, BOT_TLS_KEY_FILE) serve
	// TLS when both are set. BOT_TLS_CA_FILE is refused: the bot calls
	// nobody, so it has no CA file to read.
	TLSCertFile, TLSKeyFile string
	// MaxSearches (BOT_MAX_SEARCHES, default 8) bounds the searches that run
	// at once, and so the memory their tables take (8 MiB each at most);
	// MaxQueue (BOT_MAX_QUEUE, default 64) the requests that wait for a
	// slot. A request waits while its deadline still leaves its budget, and
	// is refused with RESOURCE_EXHAUSTED otherwise. The slots are shared
	// fairly by player (SelectPlyRequest.player_id): one runs at most three
	// quarters of them, a freed slot goes to the waiting player with the
	// fewest running (round robin), and a full queue refuses the newest
	// request of the player with the most waiting.
	MaxSearches, MaxQueue int
	// CORSOrigins (BOT_CORS_ORIGINS): comma-separated origins whose pages may
	// call the API cross-origin over gRPC-Web or Connect
	// ("https://play.example.com", or "*"); empty (the default) means
	// same-origin only.
	CORSOrigins []string
	// MixedConnections (BOT_MIXED_CONNECTIONS, default false) serves every
	// plaintext HTTP/2 (h2c) connection by net/http, for a proxy in front
	// that sends native gRPC and the browsers' gRPC-Web or Connect calls on
	// one of its connections. By default a plaintext connection whose first
	// call is native gRPC goes to grpc-go's own transport, which holds an
	// idle stream in less memory and answers native gRPC only.
	MixedConnections bool
}

// Load reads the configuration through getenv, reporting every problem at
// once.
func Load(getenv func(string) string) (Config, error) {
	env := envconfig.New("BOT_", getenv)
	cfg := Config{
		GRPCAddr:         env.String("GRPC_ADDR", ":8080"),
		ShutdownTimeout:  env.Duration("SHUTDOWN_TIMEOUT", grpcserve.DefaultShutdownTimeout),
		DrainDelay:       env.Duration("DRAIN_DELAY", 0),
		LogLevel:         env.LogLevel("LOG_LEVEL", slog.LevelInfo),
		TLSCertFile:      env.String("TLS_CERT_FILE", ""),
		TLSKeyFile:       env.String("TLS_KEY_FILE", ""),
		MaxSearches:      env.IntRange("MAX_SEARCHES", rpc.DefaultMaxSearches, 1, 1024),
		MaxQueue:         env.IntRange("MAX_QUEUE", rpc.DefaultMaxQueue, 0, 1<<16),
		MixedConnections: env.Bool("MIXED_CONNECTIONS", false),
	}
	if env.String("TLS_CA_FILE", "") != "" {
		env.Errorf("TLS_CA_FILE", "the bot calls no other service, so it reads no CA file: unset it")
	}
	env.Func("TOKEN_KEY", true, func(s string) error {
		k, err := auth.ParseKey(s)
		cfg.TokenKey = k
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
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		env.Errorf("TLS_KEY_FILE", "set it together with %s, or neither", env.Name("TLS_CERT_FILE"))
	}
	return cfg, env.Err()
}

// Deps are what the server needs from its surroundings.
type Deps struct {
	Logger    *slog.Logger
	Telemetry *telemetry.Telemetry // nil: disabled
}

// Policy is the bot's authentication policy: every RPC is for services
// only (the match service, the tournament harness); a player token gets
// PermissionDenied.
func Policy() auth.Policy {
	return auth.Policy{ServiceOnly: []string{"/" + botv1.BotService_ServiceDesc.ServiceName + "/"}}
}

// Register registers the BotService handler on s with the default limits.
func Register(s *grpc.Server) {
	botv1.RegisterBotServiceServer(s, rpc.NewServer())
}

// Registrar returns the function that registers the BotService handler
// with cfg's limits.
func Registrar(cfg Config) func(*grpc.Server) {
	lim := limit.New(cfg.MaxSearches, cfg.MaxQueue)
	return func(s *grpc.Server) { botv1.RegisterBotServiceServer(s, rpc.NewLimitedServer(lim)) }
}

// Options returns the grpcserve options of the bot's server: address,
// shutdown, logging, authentication with cfg's key and the bot's policy,
// TLS when configured.
func Options(cfg Config, deps Deps) (grpcserve.Options, error) {
	v, err := auth.NewVerifier(cfg.TokenKey, auth.WithPreviousKeys(cfg.PreviousTokenKeys...))
	if err != nil {
		return grpcserve.Options{}, fmt.Errorf("token verifier: %w", err)
	}
	opts := grpcserve.Options{
		Addr:             cfg.GRPCAddr,
		ShutdownTimeout:  cfg.ShutdownTimeout,
		DrainDelay:       cfg.DrainDelay,
		Logger:           deps.Logger,
		Auth:             auth.NewInterceptor(v, Policy()),
		Telemetry:        deps.Telemetry,
		CORSOrigins:      cfg.CORSOrigins,
		MixedConnections: cfg.MixedConnections,
	}
	if opts.TLS, err = grpcserve.ServerTLS(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
		return grpcserve.Options{}, err
	}
	return opts, nil
}

// Run serves the bot service until ctx is done, then drains it.
func Run(ctx context.Context, cfg Config, deps Deps) error {
	opts, err := Options(cfg, deps)
	if err != nil {
		return err
	}
	if cfg.MaxSearches == 0 {
		cfg.MaxSearches, cfg.MaxQueue = rpc.DefaultMaxSearches, rpc.DefaultMaxQueue
	}
	return grpcserve.Run(ctx, opts, Registrar(cfg))
}
