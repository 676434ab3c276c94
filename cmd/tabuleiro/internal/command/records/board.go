package records

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/charmbracelet/x/term"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
)

// finalPosition is the position after plies, as the engine plays them
// from the start.
func finalPosition(g engine.Game, variant, layout string, plies []string) (engine.Position, error) {
	pos, err := games.New(g, variant, layout)
	if err != nil {
		return nil, err
	}
	for i, tok := range plies {
		ply, err := pos.ParsePly(tok)
		if err == nil {
			pos, err = pos.Play(ply)
		}
		if err != nil {
			return nil, fmt.Errorf("ply %d (%s): %w", i+1, tok, err)
		}
	}
	return pos, nil
}

// finalBoard prints pos, a finished game's last position, in p's language
// (the outcome line left out: the caller says it in words).
func finalBoard(out io.Writer, p *text.Printer, pos engine.Position, flip bool) {
	// The game is over (the outcome follows, once), though a game ended off
	// the board (resignation, time) is one the engine still calls ongoing:
	// no result line of the engine's, nobody to move.
	for line := range strings.Lines(boardText(p, pos, flip)) {
		switch {
		case resultLine.MatchString(line), strings.HasPrefix(line, "to move:"), line == "ongoing\n":
		case cornersToMove.MatchString(line):
			fmt.Fprint(out, boardLines(p, cornersToMove.ReplaceAllString(line, cornersOver)))
		default:
			fmt.Fprint(out, boardLines(p, line))
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

// writeBoard writes a board as the engine renders it, its facts in p's
// language, less the result: replay says it once, in words, after the
// board.
func writeBoard(w io.Writer, p *text.Printer, render string) {
	for line := range strings.Lines(render) {
		if !resultLine.MatchString(line) {
			fmt.Fprint(w, boardLines(p, line))
		}
	}
}

// boardText is v's board as the engine draws it, turned half a turn (as
// the second seat sees it) when flip and the game has sides (not Banqi),
// its pawns and pieces (Quoridor, Corners) by the letters of p's language
// the game screen and watch draw: W and B in English, B and P (branco,
// preto) in Portuguese, B and N (blancas, negras) in Spanish.
func boardText(p *text.Printer, v engine.View, flip bool) string {
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

// stepThrough prints the board at the start and after each of plies, as
// the engine plays them (the service accepted every one), waiting for
// enter between plies when standard input is a terminal; q stops.
func stepThrough(e *cli.Env, g engine.Game, variant, layout string, plies []string, flip bool) error {
	pos, err := games.New(g, variant, layout)
	if err != nil {
		return err
	}
	in, _ := e.Stdin.(*os.File)
	interactive := in != nil && term.IsTerminal(in.Fd())
	var lines *bufio.Scanner
	if interactive {
		lines = bufio.NewScanner(in)
	}
	show := func(head string, p engine.Position) {
		fmt.Fprintln(e.Stdout, head)
		writeBoard(e.Stdout, e.P, boardText(e.P, p, flip))
	}
	show(e.T("replay.start"), pos)
	for i, tok := range plies {
		if interactive {
			fmt.Fprint(e.Stdout, e.T("replay.step", "n", i+1, "count", len(plies))+" ")
			if !lines.Scan() || strings.TrimSpace(lines.Text()) == "q" {
				return nil
			}
		}
		ply, err := pos.ParsePly(tok)
		if err == nil {
			pos, err = pos.Play(ply)
		}
		if err != nil {
			return fmt.Errorf("ply %d (%s): %w", i+1, tok, err)
		}
		show("\n"+e.T("replay.ply", "n", i+1, "ply", tok), pos)
	}
	return nil
}
