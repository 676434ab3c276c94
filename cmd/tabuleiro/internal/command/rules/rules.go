// Package rules is `tabuleiro rules`: the rules documents, and a record
// checked against the engine (legal plies, the board after it, perft).
package rules

import (
	"errors"
	"fmt"
	"google.golang.org/grpc/codes"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"tabuleiro.dev/cmd/tabuleiro/internal/boardtext"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
	"time"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	rulesdoc "tabuleiro.dev/docs/rules"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
)

// recordFlags select a game variant and the record to apply to it.
type recordFlags struct {
	game    string
	variant string
	layout  string
	moves   string
	file    string
}

func (f *recordFlags) register(e *cli.Env, c *cobra.Command) {
	c.Flags().StringVar(&f.game, "game", "quoridor", e.T("flag.rules.game", "games", strings.Join(gameword.Names(), ", ")))
	c.Flags().StringVar(&f.variant, "variant", "", e.T("flag.rules.variant"))
	c.Flags().StringVar(&f.layout, "layout", "", e.T("flag.rules.layout"))
	c.Flags().StringVar(&f.moves, "moves", "", e.T("flag.rules.moves"))
	c.Flags().StringVar(&f.file, "file", "", e.T("flag.rules.file"))
}

func New(e *cli.Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "rules",
		Short: e.T("cmd.rules.short"),
	}
	c.AddCommand(newRulesShowCommand(e), newRulesLegalCommand(e), newRulesPlayCommand(e), newRulesPerftCommand(e))
	return c
}

// sectionID is how a rules section is numbered: its game's letter, then
// numbers ("Q3.2", "b4").
var sectionID = regexp.MustCompile(`^[QCBqcb]\d+(\.\d+)*$`)

func newRulesShowCommand(e *cli.Env) *cobra.Command {
	var game, section string
	c := &cobra.Command{
		Use:     "show [GAME] [SECTION]",
		Short:   e.T("cmd.rules.show.short"),
		Long:    e.T("cmd.rules.show.long"),
		Example: "  tabuleiro rules show banqi\n  tabuleiro rules show Q3.2",
		Args:    cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			gameSet := cmd.Flags().Changed("game")
			games := strings.Join(rulesdoc.Games, ", ")
			for _, a := range args {
				switch {
				case slices.Contains(rulesdoc.Games, strings.ToLower(a)):
					game, gameSet = strings.ToLower(a), true
				case sectionID.MatchString(a):
					section = a
				default:
					return &cli.ExitError{Code: 2, Err: e.Errorf("error.rules_unknown", "arg", strconv.Quote(a), "games", games)}
				}
			}
			if section != "" && !gameSet {
				// The section id names its game: Q, C or B.
				if g, ok := map[byte]string{'Q': "quoridor", 'C': "corners", 'B': "banqi"}[strings.ToUpper(section)[0]]; ok {
					game = g
				}
			}
			if !slices.Contains(rulesdoc.Games, game) {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.unknown_game", "game", strconv.Quote(game), "choice", games)}
			}
			doc, err := text.Rules(e.P, game)
			if err == nil && section != "" {
				if ids, _ := rulesdoc.SectionsIn(e.P.Lang(), game); !slices.ContainsFunc(ids, func(id string) bool { return strings.EqualFold(id, section) }) {
					return &cli.ExitError{Code: 2, Err: e.Errorf("error.rules_no_section", "game", e.T("game."+game), "section", section, "id", game)}
				}
				doc, err = text.RulesSection(e.P, game, section)
			}
			if err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			// Rendered for the terminal: plain headings, paragraphs and
			// list items wrapped to its width, tables as items, no
			// Markdown marks (the comments, the web's, go too).
			for _, l := range termtext.Rules(doc, termtext.Width(e.Stdout)) {
				fmt.Fprintln(e.Stdout, strings.TrimPrefix(l, "# "))
			}
			return nil
		},
	}
	c.Flags().StringVar(&game, "game", "quoridor", e.T("flag.rules.game", "games", strings.Join(rulesdoc.Games, ", ")))
	c.Flags().StringVar(&section, "section", "", e.T("flag.rules.section"))
	return c
}

func newRulesLegalCommand(e *cli.Env) *cobra.Command {
	var f recordFlags
	c := &cobra.Command{
		Use:   "legal",
		Short: e.T("cmd.rules.legal.short"),
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			pos, _, err := f.replay(e, nil)
			if err != nil {
				return err
			}
			var out []string
			for _, p := range pos.Legal() {
				out = append(out, p.String())
			}
			slices.Sort(out)
			for _, s := range out {
				fmt.Fprintln(e.Stdout, s)
			}
			return nil
		},
	}
	f.register(e, c)
	return c
}

func newRulesPlayCommand(e *cli.Env) *cobra.Command {
	var f recordFlags
	c := &cobra.Command{
		Use:   "play",
		Short: e.T("cmd.rules.play.short"),
		Long:  e.T("cmd.rules.play.long"),
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			pos, _, err := f.replay(e, func(n int, p engine.Ply, after engine.Position) {
				// A Banqi reveal shows the piece that was face down (B3).
				if b, ok := after.(banqi.Position); ok {
					if pc := b.LastRevealed(); pc != banqi.NoPiece {
						fmt.Fprintln(e.Stdout, e.T("rules.reveals", "n", n, "ply", p.String(), "piece", boardtext.Piece(e.P, pc.Name())))
					}
				}
			})
			if err != nil {
				return err
			}
			// The board and its facts in the player's language (the game
			// screen's letters), then the outcome in words.
			boardtext.Write(e.Stdout, e.P, boardtext.Of(e.P, pos, false))
			fmt.Fprintln(e.Stdout, e.T("outcome.line", "outcome", gameword.Outcome(e.P, pos.Variant().Game, outcome(pos.Outcome()))))
			if pos.Variant().NeedsSetup {
				for _, s := range []engine.Seat{engine.First, engine.Second} {
					fmt.Fprintln(e.Stdout, "\n"+e.T("rules.sees", "seat", boardtext.SeatWords(e.P, pos.SeatName(s))))
					boardtext.Write(e.Stdout, e.P, boardtext.Of(e.P, pos.View(s), false))
				}
			}
			return nil
		},
	}
	f.register(e, c)
	return c
}

func newRulesPerftCommand(e *cli.Env) *cobra.Command {
	var f recordFlags
	var depth int
	c := &cobra.Command{
		Use:   "perft",
		Short: e.T("cmd.rules.perft.short"),
		Long:  e.T("cmd.rules.perft.long"),
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if depth < 0 {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.rules_depth", "depth", depth)}
			}
			pos, _, err := f.replay(e, nil)
			if err != nil {
				return err
			}
			start := time.Now()
			n := perft(pos, depth)
			fmt.Fprintln(e.Stdout, n)
			fmt.Fprintln(e.Stderr, e.T("rules.perft", "depth", depth, "count", strconv.FormatUint(n, 10), "time", time.Since(start).Round(time.Millisecond).String()))
			return nil
		},
	}
	f.register(e, c)
	c.Flags().IntVar(&depth, "depth", 1, e.T("flag.rules.depth"))
	return c
}

// refusal is the engine's refusal of a ply as the match service sends it
// (a status with its reason and parameters), which the terminal says in
// the player's language, as the game screen does.
var refusal = rpcerr.Must(rpcerr.Mapper{
	{Err: engine.ErrSyntax, Code: codes.InvalidArgument, Reason: reason.PlySyntax},
	{Err: engine.ErrIllegalMove, Code: codes.FailedPrecondition, Reason: reason.IllegalPly},
	{Err: engine.ErrGameOver, Code: codes.FailedPrecondition, Reason: reason.GameOver},
	{Err: engine.ErrUnknownVariant, Code: codes.InvalidArgument, Reason: reason.UnknownVariant},
}).Status

// outcome is an engine's outcome as the API's (gameword says those).
func outcome(o engine.Outcome) *gamev1.Outcome {
	out := &gamev1.Outcome{Result: gamev1.Result(o.Result + 1), Reason: gamev1.Reason(o.Reason)}
	if o.Result == engine.Win {
		out.Winner = gamev1.Seat(o.Winner)
	}
	return out
}

// perft uses a game's own fast counter when it has one.
func perft(pos engine.Position, depth int) uint64 {
	if fast, ok := pos.(interface{ Perft(int) uint64 }); ok {
		return fast.Perft(depth)
	}
	if depth == 0 || pos.Outcome().Over() {
		return 1
	}
	var n uint64
	for _, p := range pos.Legal() {
		next, err := pos.Play(p)
		if err != nil {
			panic(fmt.Sprintf("perft: listed ply %s does not play: %v", p, err))
		}
		n += perft(next, depth-1)
	}
	return n
}

// replay builds the start position and applies the record, calling each
// (if not nil) after every ply. A bad record or an illegal ply is an
// exitError with status 1 naming the ply's number.
func (f *recordFlags) replay(e *cli.Env, each func(n int, p engine.Ply, after engine.Position)) (engine.Position, engine.Record, error) {
	text, err := f.recordText(e)
	if err != nil {
		return nil, engine.Record{}, &cli.ExitError{Code: 2, Err: err}
	}
	rec, err := engine.ParseRecord(text)
	if err != nil {
		return nil, engine.Record{}, &cli.ExitError{Code: 1, Err: fmt.Errorf("record: %w", err)}
	}
	layout := f.layout
	if layout == "" {
		layout, _ = rec.Header("layout") // a Banqi record carries its layout (B1)
	}
	// The mistakes a person makes here, each said with what to give.
	if !slices.Contains(rulesdoc.Games, f.game) {
		return nil, rec, &cli.ExitError{Code: 2, Err: e.Errorf("error.unknown_game", "game", strconv.Quote(f.game), "choice", strings.Join(rulesdoc.Games, ", "))}
	}
	if _, err := gameword.Variant(e.P, engine.Game(f.game), f.variant); err != nil {
		return nil, rec, &cli.ExitError{Code: 2, Err: err}
	}
	if engine.Game(f.game) == engine.Banqi && layout == "" {
		return nil, rec, &cli.ExitError{Code: 2, Err: e.Errorf("error.rules_banqi_layout")}
	}
	pos, err := games.New(engine.Game(f.game), f.variant, layout)
	if err != nil {
		// A layout that does not parse: the engine's words name the letter.
		return nil, rec, &cli.ExitError{Code: 2, Err: err}
	}
	for i, tok := range rec.Plies {
		n := i + 1
		ply, err := pos.ParsePly(tok)
		if err != nil {
			return nil, rec, &cli.ExitError{Code: 1, Err: e.Errorf("error.rules_ply", "n", n, "ply", tok, "error", refusal(err))}
		}
		next, err := pos.Play(ply)
		if err != nil {
			return nil, rec, &cli.ExitError{Code: 1, Err: e.Errorf("error.rules_ply", "n", n, "ply", tok, "error", refusal(err))}
		}
		if each != nil {
			each(n, ply, next)
		}
		pos = next
	}
	return pos, rec, nil
}

func (f *recordFlags) recordText(e *cli.Env) (string, error) {
	switch {
	case f.file != "" && f.moves != "":
		return "", e.Errorf("error.rules_both_sources")
	case f.file == "-":
		b, err := io.ReadAll(e.Stdin)
		return string(b), err
	case f.file != "":
		b, err := os.ReadFile(f.file)
		if errors.Is(err, os.ErrNotExist) {
			return "", e.Errorf("error.rules_no_file", "file", strconv.Quote(f.file))
		}
		return string(b), err
	default:
		return f.moves, nil
	}
}
