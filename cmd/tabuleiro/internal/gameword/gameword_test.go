package gameword

import (
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// No plies is said in words ("nenhum lance"), not "0 lance" (Portuguese's
// plural form one covers 0).
func TestNoPlies(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string]string{"en": "no plies", "pt-BR": "nenhum lance", "es": "ninguna jugada"} {
		if got := Plies(text.Catalog.Printer(lang), 0); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
		if got := Plies(text.Catalog.Printer(lang), 1); got == want {
			t.Errorf("%s: one ply said as none", lang)
		}
	}
}
