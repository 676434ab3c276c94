package config

import (
	"testing"

	"tabuleiro.dev/pkg/platform/envconfig"
)

// TestEnvironmentDoc keeps deploy/env/lobby.md equal to the variables Load
// reads and the comments of their fields (TABULEIRO_UPDATE_DOCS=1 rewrites it).
func TestEnvironmentDoc(t *testing.T) {
	names := envconfig.Vars(func(getenv func(string) string) { _, _ = Load(getenv) })
	desc, err := envconfig.Describe("config.go", "Config", "LOBBY_")
	if err != nil {
		t.Fatal(err)
	}
	doc, missing := envconfig.Markdown("lobby", names, desc)
	envconfig.CheckDoc(t, "../../../../deploy/env/lobby.md", doc, missing)
}
