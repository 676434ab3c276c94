package boardtext

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
)

// Final prints pos, a finished game's last position, in p's language
// (the outcome line left out: the caller says it in words).
func Final(out io.Writer, p *text.Printer, pos engine.Position, flip bool) {
	// The game is over (the outcome follows, once), though a game ended off
	// the board (resignation, time) is one the engine still calls ongoing:
	// no result line of the engine's, nobody to move.
	for line := range strings.Lines(Of(p, pos, flip)) {
		switch {
		case resultLine.MatchString(line), strings.HasPrefix(line, "to move:"), line == "ongoing\n":
		case cornersToMove.MatchString(line):
			fmt.Fprint(out, fit(out, Lines(p, cornersToMove.ReplaceAllString(line, cornersOver))))
		default:
			fmt.Fprint(out, fit(out, Lines(p, line)))
		}
	}
}

// cornersOver replaces the engine's Corners line of the side to move once
// the game is over (then said in the player's language).
const cornersOver = "game over at move "

// cornersToMove is the start of Corners' line of the side to move ("black
// to move, move 2 (leave home by move 40, last move 80)").
var cornersToMove = regexp.MustCompile(`^(white|black) to move, move `)

// resultLine matches the result line of an engine's board: Banqi's
// "outcome: …", Quoridor's "game over: white wins (goal)", Corners' bare
// "white wins (goal)" or "draw (move-limit)".
var resultLine = regexp.MustCompile(`^(outcome: |game over: |(white|black|first|second) wins \(|draw \()`)

// Write writes a board as the engine renders it, its facts in p's
// language and wrapped at words to w's width (a Banqi list of pieces runs
// past 80 columns), less the result: replay says it once, in words, after
// the board.
func Write(w io.Writer, p *text.Printer, render string) {
	for line := range strings.Lines(render) {
		if !resultLine.MatchString(line) {
			fmt.Fprint(w, fit(w, Lines(p, line)))
		}
	}
}

// fit wraps a line of facts (with its newline) to w's width; the board's
// own rows are narrower than any terminal.
func fit(w io.Writer, line string) string {
	body, nl := strings.CutSuffix(line, "\n")
	out := termtext.Wrap(body, termtext.Width(w))
	if nl {
		out += "\n"
	}
	return out
}

// Of is v's board as the engine draws it, turned half a turn (as
// the second seat sees it) when flip and the game has sides (not Banqi),
// its pawns and pieces (Quoridor, Corners) by the letters of p's language
// the game screen and watch draw: W and B in English, B and P (branco,
// preto) in Portuguese, B and N (blancas, negras) in Spanish.
func Of(p *text.Printer, v engine.View, flip bool) string {
	render := v.Render()
	if t, ok := v.(interface{ RenderFlipped() string }); ok && flip {
		render = t.RenderFlipped()
	}
	if v.Variant().Game == engine.Banqi {
		return render // B1's letters, the same in every language
	}
	return seatLetters(p, render)
}

// boardRow is a rank of a Quoridor or Corners drawing: its number, its
// cells (dots, W, B, walls, home brackets), its number again.
var boardRow = regexp.MustCompile(`^ *\d+ [ .WB|=\[\]]+ \d+$`)

// seatLetters is render with the engine's W and B on its board rows in
// p's language ("board.letter.white", "board.letter.black").
func seatLetters(p *text.Printer, render string) string {
	white, black := text.T(p, "board.letter.white"), text.T(p, "board.letter.black")
	var b strings.Builder
	for line := range strings.Lines(render) {
		if !boardRow.MatchString(strings.TrimSuffix(line, "\n")) {
			b.WriteString(line)
			continue
		}
		for _, r := range line {
			switch r {
			case 'W':
				b.WriteString(white)
			case 'B':
				b.WriteString(black)
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// IsResult reports whether line is an engine's result line (Banqi's
// "outcome: …", Quoridor's "game over: …", Corners' "white wins (goal)").
func IsResult(line string) bool { return resultLine.MatchString(line) }
