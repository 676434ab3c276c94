package cli

import "testing"

// Hints names this program as it was started, once: a command the message
// already names as self (a resume command built from it) stays as it is.
func TestHints(t *testing.T) {
	const self = "go run ./cmd/tabuleiro"
	for in, want := range map[string]string{
		"run `tabuleiro play --resume`":                          "run `go run ./cmd/tabuleiro play --resume`",
		"tabuleiro history, then tabuleiro replay ID":            "go run ./cmd/tabuleiro history, then go run ./cmd/tabuleiro replay ID",
		"volte com `go run ./cmd/tabuleiro play --resume`.":      "volte com `go run ./cmd/tabuleiro play --resume`.",
		"the tabuleiro program, a mytabuleiro play, tabuleiro x": "the tabuleiro program, a mytabuleiro play, tabuleiro x",
	} {
		if got := Hints(in, self); got != want {
			t.Errorf("Hints(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Hints("tabuleiro play", "tabuleiro"); got != "tabuleiro play" {
		t.Errorf("as tabuleiro: %q", got)
	}
}
