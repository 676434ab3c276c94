package records

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"

	"tabuleiro.dev/cmd/tabuleiro/internal/boardtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
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
		boardtext.Write(e.Stdout, e.P, boardtext.Of(e.P, p, flip))
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
