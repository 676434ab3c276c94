package review

import (
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// The review's footer counts in words with the language's plurals (1
// imprecisão, 2 erros graves, nenhum erro: never "1 imprecisões" nor "0
// erro") and says which bot reviewed, not its identifier.
func TestReviewFooterInWords(t *testing.T) {
	t.Parallel()
	seat := &gamev1.SeatReview{Seat: gamev1.Seat_SEAT_FIRST, Accuracy: 82, Inaccuracies: 1, Mistakes: 0, Blunders: 2}
	r := &gamev1.GameReview{EngineVersion: "expert-2026-12-06", Nodes: 4000}
	for _, tt := range []struct{ lang, summary, engine string }{
		{"en", "white: accuracy 82%, 1 inaccuracy, no mistakes, 2 blunders", "reviewed by the expert bot, version 2026-12-06, at 4,000 positions a ply"},
		{"pt-BR", "branco: precisão 82%, 1 imprecisão, nenhum erro, 2 erros graves", "análise do robô especialista, versão 2026-12-06, com 4.000 posições por lance"},
		{"es", "blanco: precisión 82%, 1 imprecisión, ningún error, 2 errores graves", "análisis del bot experto, versión 2026-12-06, con 4.000 posiciones por jugada"},
	} {
		p := text.Catalog.Printer(tt.lang)
		if got := seatSummary(p, engine.Quoridor, seat); got != tt.summary {
			t.Errorf("%s summary %q, want %q", tt.lang, got, tt.summary)
		}
		if got := engineLine(p, r); got != tt.engine {
			t.Errorf("%s engine %q, want %q", tt.lang, got, tt.engine)
		}
	}
}
