package config

import (
	"maps"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/envconfig"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("a", 44)
	cfg, err := Load(envconfig.Map(map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": key,
		"MATCH_RECONNECT_WINDOW": "5s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GRPCAddr != ":8080" || cfg.ReconnectWindow != 5*time.Second || cfg.FirstPlyTimeout != 30*time.Second || len(cfg.TokenKey) < 32 {
		t.Fatalf("config %+v", cfg)
	}
}

// TestLoadUntimedBotWait: a deployed match service gives a one-device or
// untimed bot game a day (`tabuleiro serve` sets its own 30 days), not the
// 30 s first-ply window of a game between people.
func TestLoadUntimedBotWait(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": strings.Repeat("a", 44),
	}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || cfg.UntimedBotWait != 24*time.Hour {
		t.Fatalf("default: %v, %v; want 24h", cfg.UntimedBotWait, err)
	}
	env["MATCH_UNTIMED_BOT_WAIT"] = "0s"
	if cfg, err = Load(envconfig.Map(env)); err != nil || cfg.UntimedBotWait != 0 {
		t.Fatalf("0s: %v, %v; want 0 (the windows of any match)", cfg.UntimedBotWait, err)
	}
	env["MATCH_UNTIMED_BOT_WAIT"] = "-1h"
	if _, err := Load(envconfig.Map(env)); err == nil || !strings.Contains(err.Error(), "MATCH_UNTIMED_BOT_WAIT") {
		t.Errorf("-1h: err = %v, want one naming MATCH_UNTIMED_BOT_WAIT", err)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := Load(envconfig.Map(map[string]string{"MATCH_SWEEP_INTERVAL": "1s"}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"MATCH_REDIS_URL", "MATCH_DATABASE_URL", "MATCH_TOKEN_KEY", "MATCH_SWEEP_INTERVAL"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestLoadTLS(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": strings.Repeat("a", 44),
		"MATCH_TLS_CERT_FILE": "/tls/tls.crt", "MATCH_TLS_KEY_FILE": "/tls/tls.key", "MATCH_TLS_CA_FILE": "/tls/ca.crt",
	}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || cfg.TLSCertFile != "/tls/tls.crt" || cfg.TLSKeyFile != "/tls/tls.key" || cfg.TLSCAFile != "/tls/ca.crt" {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	delete(env, "MATCH_TLS_CERT_FILE")
	if _, err := Load(envconfig.Map(env)); err == nil || !strings.Contains(err.Error(), "MATCH_TLS_KEY_FILE") {
		t.Errorf("a key without a certificate: err = %v, want one naming MATCH_TLS_KEY_FILE", err)
	}
}

func TestLoadCORSOrigins(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": strings.Repeat("a", 44),
	}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || len(cfg.CORSOrigins) != 0 {
		t.Fatalf("default: %q, %v; want no origins (same-origin only)", cfg.CORSOrigins, err)
	}
	env["MATCH_CORS_ORIGINS"] = "https://play.example, http://localhost:5173"
	cfg, err = Load(envconfig.Map(env))
	if err != nil || len(cfg.CORSOrigins) != 2 || cfg.CORSOrigins[1] != "http://localhost:5173" {
		t.Fatalf("two origins: %q, %v", cfg.CORSOrigins, err)
	}
	env["MATCH_CORS_ORIGINS"] = "play.example/path"
	if _, err := Load(envconfig.Map(env)); err == nil || !strings.Contains(err.Error(), "MATCH_CORS_ORIGINS") {
		t.Errorf("a malformed origin: err = %v, want one naming MATCH_CORS_ORIGINS", err)
	}
}

func TestLoadRedisWait(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": strings.Repeat("a", 44),
	}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || cfg.RedisWaitReplicas != 0 || cfg.RedisWaitTimeout != time.Second {
		t.Fatalf("defaults: %d replicas, %v, %v", cfg.RedisWaitReplicas, cfg.RedisWaitTimeout, err)
	}
	env["MATCH_REDIS_WAIT_REPLICAS"], env["MATCH_REDIS_WAIT_TIMEOUT"] = "1", "250ms"
	cfg, err = Load(envconfig.Map(env))
	if err != nil || cfg.RedisWaitReplicas != 1 || cfg.RedisWaitTimeout != 250*time.Millisecond {
		t.Fatalf("set: %d replicas, %v, %v", cfg.RedisWaitReplicas, cfg.RedisWaitTimeout, err)
	}
	for k, v := range map[string]string{"MATCH_REDIS_WAIT_REPLICAS": "-1", "MATCH_REDIS_WAIT_TIMEOUT": "0s"} {
		bad := maps.Clone(env)
		bad[k] = v
		if _, err := Load(envconfig.Map(bad)); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: err = %v, want one naming it", k, v, err)
		}
	}
}

// TestLoadRateLimits: per-player call rates and per-stream message rates
// default to what no player reaches, and can be set or turned off.
func TestLoadRateLimits(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": strings.Repeat("a", 44),
	}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || cfg.CallRate != 20 || cfg.CallBurst != 60 || cfg.PlayMessageRate != 10 || cfg.PlayMessageBurst != 100 || cfg.RateLimitsOff || cfg.MixedConnections {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
	env["MATCH_CALL_RATE"], env["MATCH_CALL_BURST"], env["MATCH_RATE_LIMITS_OFF"], env["MATCH_MIXED_CONNECTIONS"] = "50", "200", "true", "true"
	cfg, err = Load(envconfig.Map(env))
	if err != nil || cfg.CallRate != 50 || cfg.CallBurst != 200 || !cfg.RateLimitsOff || !cfg.MixedConnections {
		t.Fatalf("set: %+v, %v", cfg, err)
	}
	for _, k := range []string{"MATCH_CALL_RATE", "MATCH_CALL_BURST", "MATCH_PLAY_MESSAGE_RATE", "MATCH_PLAY_MESSAGE_BURST"} {
		bad := maps.Clone(env)
		bad[k] = "0"
		if _, err := Load(envconfig.Map(bad)); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=0: err = %v, want one naming it", k, err)
		}
	}
}
