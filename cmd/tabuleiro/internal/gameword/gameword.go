// Package gameword names games, variants, seats and outcomes for the
// terminal's messages, in the player's language.
package gameword

import (
	"errors"
	"strconv"
	"strings"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// Names lists the games' ids: quoridor, corners, banqi.
func Names() []string {
	var names []string
	for _, g := range games.List() {
		names = append(names, string(g))
	}
	return names
}

// Choice lists the games for a message: "quoridor, corners or banqi".
func Choice(p *text.Printer) string {
	names := Names()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return text.T(p, "list.or", "first", strings.Join(names[:len(names)-1], ", "), "last", names[len(names)-1])
}

// Proto is the API's name of game g.
func Proto(g engine.Game) gamev1.Game {
	v := gamev1.Game_value["GAME_"+strings.ToUpper(string(g))]
	return gamev1.Game(v)
}

// Lower is the engine's id of the API's game g: "quoridor".
func Lower(g gamev1.Game) string {
	return strings.ToLower(strings.TrimPrefix(g.String(), "GAME_"))
}

// Variant returns the variant id to play: v, or the game's first; an
// unknown v is refused in p's language, naming the game's variants.
func Variant(p *text.Printer, g engine.Game, v string) (string, error) {
	if v != "" {
		if _, err := games.Lookup(g, v); err != nil {
			vs, verr := games.Variants(g)
			if verr != nil {
				return "", verr
			}
			var ids []string
			for _, x := range vs {
				ids = append(ids, x.ID+" ("+text.Variant(p, Proto(g), x.ID)+")")
			}
			return "", errors.New(text.T(p, "error.unknown_variant", "game", text.Game(p, Proto(g)), "variant", strconv.Quote(v), "choice", strings.Join(ids, ", ")))
		}
		return v, nil
	}
	vs, err := games.Variants(g)
	if err != nil {
		return "", err
	}
	return vs[0].ID, nil
}

// Outcome says how a game ended, naming seats as the game does.
func Outcome(p *text.Printer, g engine.Game, o *gamev1.Outcome) string {
	if o.GetResult() == gamev1.Result_RESULT_ONGOING {
		return text.T(p, "outcome.ongoing")
	}
	return text.Lower(text.Outcome(p, o, Seat(p, g, o.GetWinner()), 0))
}

// Seat names seat s of game g as the game does: "white", "red".
func Seat(p *text.Printer, g engine.Game, s gamev1.Seat) string {
	return text.Seat(p, Proto(g), s, false, false)
}

// Plies is "1 ply" or "N plies".
func Plies(p *text.Printer, n int) string {
	if n == 0 {
		return text.T(p, "plies.none") // "nenhum lance", not "0 lance"
	}
	return text.T(p, "plies", "count", n)
}
