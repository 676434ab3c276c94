package config

import (
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/envconfig"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	cfg, err := Load(envconfig.Map(map[string]string{
		"LOBBY_REDIS_URL": "redis://127.0.0.1:6379/0", "LOBBY_DATABASE_URL": "postgres://x@h/db",
		"LOBBY_MATCH_ADDR": "match:8080", "LOBBY_AUTH_KEY": auth.EncodeKey(key),
	}))
	if err != nil || cfg.GRPCAddr != ":8080" || cfg.TokenTTL != 24*time.Hour || len(cfg.AuthKey) != len(key) {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	_, err = Load(envconfig.Map(map[string]string{}))
	for _, name := range []string{"LOBBY_REDIS_URL", "LOBBY_DATABASE_URL", "LOBBY_MATCH_ADDR", "LOBBY_AUTH_KEY"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("missing %s not reported: %v", name, err)
		}
	}
}
