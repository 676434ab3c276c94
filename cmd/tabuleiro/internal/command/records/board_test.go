package records

import (
	"strings"
	"tabuleiro.dev/cmd/tabuleiro/internal/boardtext"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
)

// replay prints the final board without the engine's own result line: the
// result is said once, after it ("outcome: white wins by goal"). The
// board's other lines stay (Corners: the move it ended at).
func TestReplayBoardSaysTheResultOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		game     engine.Game
		encoding string
		keep     string
	}{
		{engine.Corners, "classic-3x3 - 61 f6,g6,h6,f7,g7,h7,f8,g8,h8 a1,b1,c1,a2,b2,c2,a3,b3,c3 - white:goal", "game over at move 31"},
		{engine.Corners, "classic-3x3 - 62 f6,g6,h6,f7,g7,h7,f8,g8,h8 a1,b1,c1,a2,b2,c2,a3,b3,c3 - draw:goal", "game over at move 31"},
	} {
		view, err := games.DecodeView(tt.game, tt.encoding)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		boardtext.Write(&b, nil, view.Render())
		if out := b.String(); strings.Contains(out, "wins") || strings.Contains(out, "draw") || !strings.Contains(out, tt.keep) {
			t.Errorf("%s board:\n%s\nwant no result on it (said once below) and %q kept", tt.game, out, tt.keep)
		}
	}
}
