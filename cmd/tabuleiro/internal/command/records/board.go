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
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
)

// finalBoard prints the board after plies, as the engine plays them from
// the start (the outcome line left out: the caller says it in words).
func finalBoard(out io.Writer, g engine.Game, variant, layout string, plies []string, flip bool) error {
	pos, err := games.New(g, variant, layout)
	if err != nil {
		return err
	}
	for i, tok := range plies {
		ply, err := pos.ParsePly(tok)
		if err == nil {
			pos, err = pos.Play(ply)
		}
		if err != nil {
			return fmt.Errorf("ply %d (%s): %w", i+1, tok, err)
		}
	}
	// The game is over (the outcome follows, once), though a game ended off
	// the board (resignation, time) is one the engine still calls ongoing:
	// no result line of the engine's, nobody to move.
	for line := range strings.Lines(boardText(pos, flip)) {
		switch {
		case resultLine.MatchString(line), strings.HasPrefix(line, "to move:"), line == "ongoing\n":
		case cornersToMove.MatchString(line):
			// The engine's board is drawn in its own (English) words.
			fmt.Fprint(out, cornersToMove.ReplaceAllString(line, cornersOver))
		default:
			fmt.Fprint(out, line)
		}
	}
	return nil
}

// cornersOver replaces the engine's Corners line of the side to move once
// the game is over: the engine's words.
const cornersOver = "game over at move "

// cornersToMove is the start of Corners' line of the side to move ("black
// to move, move 2 (leave home by move 40, last move 80)").
var cornersToMove = regexp.MustCompile(`^(white|black) to move, move `)

// resultLine matches the result line of an engine's board: Banqi's
// "outcome: …", Quoridor's "game over: white wins (goal)", Corners' bare
// "white wins (goal)" or "draw (move-limit)".
var resultLine = regexp.MustCompile(`^(outcome: |game over: |(white|black|first|second) wins \(|draw \()`)

// writeBoard writes a board as the engine renders it, less the result:
// replay says it once, in words, after the board.
func writeBoard(w io.Writer, render string) {
	for line := range strings.Lines(render) {
		if !resultLine.MatchString(line) {
			fmt.Fprint(w, line)
		}
	}
}

// boardText is v's board as the engine draws it, turned half a turn (as
// the second seat sees it) when flip and the game has sides (not Banqi).
func boardText(v engine.View, flip bool) string {
	if t, ok := v.(interface{ RenderFlipped() string }); ok && flip {
		return t.RenderFlipped()
	}
	return v.Render()
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
		writeBoard(e.Stdout, boardText(p, flip))
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
		show(fmt.Sprintf("\nply %d: %s", i+1, tok), pos)
	}
	return nil
}
