package envconfig_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/envconfig"
)

type config struct {
	Addr     string
	DBURL    string
	Timeout  time.Duration
	Level    slog.Level
	Workers  int
	Debug    bool
	Mode     string
	KeyBytes int
}

func load(getenv func(string) string) (config, error) {
	env := envconfig.New("MATCH_", getenv)
	cfg := config{
		Addr:    env.String("GRPC_ADDR", ":8080"),
		DBURL:   env.URL("DATABASE_URL", ""),
		Timeout: env.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		Level:   env.LogLevel("LOG_LEVEL", slog.LevelInfo),
		Workers: env.IntRange("WORKERS", 4, 1, 64),
		Debug:   env.Bool("DEBUG", false),
		Mode:    env.OneOf("MODE", "local", "local", "cluster"),
	}
	env.Func("TOKEN_KEY", true, func(s string) error {
		if len(s) < 4 {
			return errors.New("too short")
		}
		cfg.KeyBytes = len(s)
		return nil
	})
	return cfg, env.Err()
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := load(envconfig.Map(map[string]string{
		"MATCH_DATABASE_URL": "postgres://u:p@db:5432/x",
		"MATCH_TOKEN_KEY":    "abcdef",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{Addr: ":8080", DBURL: "postgres://u:p@db:5432/x", Timeout: 10 * time.Second, Level: slog.LevelInfo, Workers: 4, Mode: "local", KeyBytes: 6}
	if cfg != want {
		t.Errorf("Load = %+v, want %+v", cfg, want)
	}
}

func TestLoadValues(t *testing.T) {
	t.Parallel()
	cfg, err := load(envconfig.Map(map[string]string{
		"MATCH_GRPC_ADDR":        "127.0.0.1:9000",
		"MATCH_DATABASE_URL":     "postgres://db/x",
		"MATCH_SHUTDOWN_TIMEOUT": "1m30s",
		"MATCH_LOG_LEVEL":        "debug",
		"MATCH_WORKERS":          "8",
		"MATCH_DEBUG":            "true",
		"MATCH_MODE":             "cluster",
		"MATCH_TOKEN_KEY":        "abcd",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{Addr: "127.0.0.1:9000", DBURL: "postgres://db/x", Timeout: 90 * time.Second, Level: slog.LevelDebug, Workers: 8, Debug: true, Mode: "cluster", KeyBytes: 4}
	if cfg != want {
		t.Errorf("Load = %+v, want %+v", cfg, want)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := load(envconfig.Map(map[string]string{
		"MATCH_SHUTDOWN_TIMEOUT": "ten seconds",
		"MATCH_LOG_LEVEL":        "loud",
		"MATCH_WORKERS":          "100",
		"MATCH_DEBUG":            "maybe",
		"MATCH_MODE":             "cloud",
		"MATCH_TOKEN_KEY":        "abc",
	}))
	if err == nil {
		t.Fatal("Load accepted a bad environment")
	}
	msg := err.Error()
	for _, name := range []string{
		"MATCH_DATABASE_URL: required",
		"MATCH_SHUTDOWN_TIMEOUT",
		"MATCH_LOG_LEVEL",
		"MATCH_WORKERS: 100 is outside 1..64",
		"MATCH_DEBUG",
		"MATCH_MODE",
		"MATCH_TOKEN_KEY: too short",
	} {
		if !strings.Contains(msg, name) {
			t.Errorf("error does not report %q:\n%s", name, msg)
		}
	}
	if n := len(strings.Split(msg, "\n")); n != 7 {
		t.Errorf("error has %d lines, want 7:\n%s", n, msg)
	}
	if strings.Contains(msg, "abc") {
		t.Errorf("error leaks the secret value:\n%s", msg)
	}
}

func TestURLNeverEchoed(t *testing.T) {
	t.Parallel()
	env := envconfig.New("X_", envconfig.Map(map[string]string{"X_DB": "not a url with pa55word"}))
	env.URL("DB", "")
	err := env.Err()
	if err == nil || strings.Contains(err.Error(), "pa55word") {
		t.Errorf("URL error = %v, want a problem that does not echo the value", err)
	}
}
