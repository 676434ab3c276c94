package main

import (
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/envconfig"
	"tabuleiro.dev/services/match/internal/config"
)

// TestServerConfigUntimedWait: the deployed service waits a day for a
// one-device or untimed bot game (not the 30-second first-ply window of a
// game between people), and keeps its Redis keys longer than that wait
// (else the game would vanish before its first ply).
func TestServerConfigUntimedWait(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(envconfig.Map(map[string]string{
		"MATCH_REDIS_URL": "redis://r:6379/0", "MATCH_DATABASE_URL": "postgres://p/db", "MATCH_TOKEN_KEY": strings.Repeat("a", 44),
	}))
	if err != nil {
		t.Fatal(err)
	}
	sc := serverConfig(cfg)
	if sc.Match.UntimedBotWait != 24*time.Hour {
		t.Errorf("UntimedBotWait = %v, want 24h", sc.Match.UntimedBotWait)
	}
	if sc.Store.LiveTTL <= sc.Match.UntimedBotWait {
		t.Errorf("LiveTTL = %v, want more than the untimed wait %v", sc.Store.LiveTTL, sc.Match.UntimedBotWait)
	}
	if sc.Match.FirstPlyTimeout != 30*time.Second || sc.Match.ReconnectWindow != 60*time.Second {
		t.Errorf("windows = %v, %v; want the defaults 30s, 60s", sc.Match.FirstPlyTimeout, sc.Match.ReconnectWindow)
	}
}
