package config

import (
	"testing"

	"tabuleiro.dev/pkg/platform/envconfig"
)

// TestEnvironmentDoc keeps deploy/env/match.md equal to the variables Load
// reads and the comments of their fields (TABULEIRO_UPDATE_DOCS=1 rewrites it).
func TestEnvironmentDoc(t *testing.T) {
	names := envconfig.Vars(func(getenv func(string) string) { _, _ = Load(getenv) })
	desc, err := envconfig.Describe("config.go", "Config", "MATCH_")
	if err != nil {
		t.Fatal(err)
	}
	doc, missing := envconfig.Markdown("match", names, desc)
	envconfig.CheckDoc(t, "../../../../deploy/env/match.md", doc, missing)
}
