package edgeproxy

import (
	"testing"

	"tabuleiro.dev/pkg/platform/envconfig"
)

// TestEnvironmentDoc keeps deploy/env/edge.md equal to the variables Load
// reads and the comments of their fields (TABULEIRO_UPDATE_DOCS=1 rewrites it).
func TestEnvironmentDoc(t *testing.T) {
	names := envconfig.Vars(func(getenv func(string) string) { _, _ = LoadSettings(getenv) })
	desc, err := envconfig.Describe("config.go", "Settings", "EDGE_")
	if err != nil {
		t.Fatal(err)
	}
	doc, missing := envconfig.Markdown("edge", names, desc)
	envconfig.CheckDoc(t, "../../../deploy/env/edge.md", doc, missing)
}
