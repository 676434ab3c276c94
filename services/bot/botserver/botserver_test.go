package botserver

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/envconfig"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	key := auth.EncodeKey([]byte("0123456789abcdef0123456789abcdef"))
	cfg, err := Load(envconfig.Map(map[string]string{"BOT_TOKEN_KEY": key, "BOT_GRPC_ADDR": ":9000", "BOT_LOG_LEVEL": "debug"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GRPCAddr != ":9000" || cfg.LogLevel != slog.LevelDebug || cfg.ShutdownTimeout != 10*time.Second || len(cfg.TokenKey) != 32 {
		t.Errorf("Load = %+v", cfg)
	}
	if opts, err := Options(cfg, Deps{}); err != nil || opts.MixedConnections {
		t.Errorf("Options: mixed connections %v, %v", opts.MixedConnections, err)
	}
	cfg, err = Load(envconfig.Map(map[string]string{"BOT_TOKEN_KEY": key, "BOT_MIXED_CONNECTIONS": "true"}))
	if opts, oerr := Options(cfg, Deps{}); err != nil || oerr != nil || !opts.MixedConnections {
		t.Errorf("BOT_MIXED_CONNECTIONS=true: mixed connections %v, %v, %v", opts.MixedConnections, err, oerr)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := Load(envconfig.Map(map[string]string{"BOT_SHUTDOWN_TIMEOUT": "soon", "BOT_TLS_CERT_FILE": "/c.pem"}))
	if err == nil {
		t.Fatal("Load accepted a config without a token key")
	}
	for _, want := range []string{"BOT_TOKEN_KEY", "BOT_SHUTDOWN_TIMEOUT", "BOT_TLS_KEY_FILE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Load error %q does not name %s", err, want)
		}
	}
}

func TestPolicyCoversTheService(t *testing.T) {
	t.Parallel()
	p := Policy()
	if len(p.Public) != 0 || len(p.ServiceOnly) != 1 || p.ServiceOnly[0] != "/tabuleiro.bot.v1.BotService/" {
		t.Errorf("Policy = %+v, want the whole BotService for services only", p)
	}
}

func TestLoadLimits(t *testing.T) {
	t.Parallel()
	key := auth.EncodeKey([]byte("0123456789abcdef0123456789abcdef"))
	cfg, err := Load(envconfig.Map(map[string]string{"BOT_TOKEN_KEY": key}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxSearches != 8 || cfg.MaxQueue != 64 {
		t.Errorf("default limits %d/%d, want 8/64", cfg.MaxSearches, cfg.MaxQueue)
	}
	cfg, err = Load(envconfig.Map(map[string]string{"BOT_TOKEN_KEY": key, "BOT_MAX_SEARCHES": "3", "BOT_MAX_QUEUE": "0"}))
	if err != nil || cfg.MaxSearches != 3 || cfg.MaxQueue != 0 {
		t.Errorf("Load = %+v, %v", cfg, err)
	}
	for _, bad := range []map[string]string{
		{"BOT_TOKEN_KEY": key, "BOT_MAX_SEARCHES": "0"},
		{"BOT_TOKEN_KEY": key, "BOT_MAX_QUEUE": "-1"},
		{"BOT_TOKEN_KEY": key, "BOT_TLS_CA_FILE": "/etc/ca.crt"},
	} {
		if _, err := Load(envconfig.Map(bad)); err == nil {
			t.Errorf("Load accepted %v", bad)
		}
	}
}
