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
		"LOBBY_MATCH_ADDR": "match:8080", "LOBBY_TOKEN_KEY": auth.EncodeKey(key),
	}))
	if err != nil || cfg.GRPCAddr != ":8080" || cfg.TokenTTL != 24*time.Hour || len(cfg.TokenKey) != len(key) {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	_, err = Load(envconfig.Map(map[string]string{}))
	for _, name := range []string{"LOBBY_REDIS_URL", "LOBBY_DATABASE_URL", "LOBBY_MATCH_ADDR", "LOBBY_TOKEN_KEY"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("missing %s not reported: %v", name, err)
		}
	}
}

func TestLoadTLS(t *testing.T) {
	t.Parallel()
	key, _ := auth.GenerateKey()
	env := map[string]string{
		"LOBBY_REDIS_URL": "redis://127.0.0.1:6379/0", "LOBBY_DATABASE_URL": "postgres://x@h/db",
		"LOBBY_MATCH_ADDR": "dns:///match:8080", "LOBBY_TOKEN_KEY": auth.EncodeKey(key),
		"LOBBY_TLS_CERT_FILE": "/tls/tls.crt", "LOBBY_TLS_KEY_FILE": "/tls/tls.key", "LOBBY_TLS_CA_FILE": "/tls/ca.crt",
	}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || cfg.TLSCertFile != "/tls/tls.crt" || cfg.TLSKeyFile != "/tls/tls.key" || cfg.TLSCAFile != "/tls/ca.crt" {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	delete(env, "LOBBY_TLS_KEY_FILE")
	if _, err := Load(envconfig.Map(env)); err == nil || !strings.Contains(err.Error(), "LOBBY_TLS_KEY_FILE") {
		t.Errorf("a certificate without a key: err = %v, want one naming LOBBY_TLS_KEY_FILE", err)
	}
}

func TestLoadCORSOrigins(t *testing.T) {
	t.Parallel()
	env := map[string]string{"LOBBY_MATCH_ADDR": "match:8080", "LOBBY_TOKEN_KEY": strings.Repeat("a", 44), "LOBBY_CORS_ORIGINS": "*",
		"LOBBY_REDIS_URL": "redis://r:6379/0", "LOBBY_DATABASE_URL": "postgres://p/db"}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || len(cfg.CORSOrigins) != 1 || cfg.CORSOrigins[0] != "*" {
		t.Fatalf("LOBBY_CORS_ORIGINS=*: %q, %v", cfg.CORSOrigins, err)
	}
	if cfg.MixedConnections {
		t.Error("MixedConnections is on by default")
	}
	env["LOBBY_MIXED_CONNECTIONS"] = "true"
	if cfg, err := Load(envconfig.Map(env)); err != nil || !cfg.MixedConnections {
		t.Errorf("LOBBY_MIXED_CONNECTIONS=true: %v, %v", cfg.MixedConnections, err)
	}
	delete(env, "LOBBY_MIXED_CONNECTIONS")
	env["LOBBY_CORS_ORIGINS"] = "ftp://x"
	if _, err := Load(envconfig.Map(env)); err == nil || !strings.Contains(err.Error(), "LOBBY_CORS_ORIGINS") {
		t.Errorf("a malformed origin: err = %v, want one naming LOBBY_CORS_ORIGINS", err)
	}
}

func TestLoadWebAuthn(t *testing.T) {
	t.Parallel()
	env := map[string]string{"LOBBY_MATCH_ADDR": "match:8080", "LOBBY_TOKEN_KEY": strings.Repeat("a", 44),
		"LOBBY_REDIS_URL": "redis://r:6379/0", "LOBBY_DATABASE_URL": "postgres://p/db",
		"LOBBY_WEBAUTHN_RP_ID": "example.com", "LOBBY_WEBAUTHN_ORIGINS": "https://play.example.com, https://example.com/"}
	cfg, err := Load(envconfig.Map(env))
	if err != nil || cfg.WebAuthnRPID != "example.com" || len(cfg.WebAuthnOrigins) != 2 || cfg.WebAuthnOrigins[1] != "https://example.com" ||
		cfg.PasskeyChallengeTTL != 5*time.Minute {
		t.Fatalf("Load = %q %q %v, %v", cfg.WebAuthnRPID, cfg.WebAuthnOrigins, cfg.PasskeyChallengeTTL, err)
	}
	for _, bad := range []string{"", "example.com", "ftp://example.com", "https://example.com/path"} {
		env["LOBBY_WEBAUTHN_ORIGINS"] = bad
		if bad == "" {
			delete(env, "LOBBY_WEBAUTHN_ORIGINS")
		}
		if _, err := Load(envconfig.Map(env)); err == nil || !strings.Contains(err.Error(), "LOBBY_WEBAUTHN_ORIGINS") {
			t.Errorf("LOBBY_WEBAUTHN_ORIGINS=%q: err = %v, want one naming it", bad, err)
		}
	}
}
