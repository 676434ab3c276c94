// Package games is the registry of every game and variant that Tabuleiro
// serves: it builds a position from a game id, a variant id and a setup, and
// decodes positions and views, so that callers need not know which game
// package holds the rules.
package games

import (
	"fmt"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/pkg/engine/quoridor"
)

// rules is what each game package provides.
type rules struct {
	game       engine.Game
	variants   func() []engine.Variant
	newGame    func(variant, setup string) (engine.Position, error)
	decode     func(s string) (engine.Position, error)
	decodeView func(s string) (engine.View, error)
}

// all lists the games in the order clients show them.
var all = []rules{
	{engine.Quoridor, quoridor.Variants, quoridor.New, quoridor.Decode, quoridor.DecodeView},
	{engine.Corners, corners.Variants, corners.New, corners.Decode, corners.DecodeView},
	{engine.Banqi, banqi.Variants, banqi.New, banqi.Decode, banqi.DecodeView},
}

func find(g engine.Game) (rules, error) {
	for _, r := range all {
		if r.game == g {
			return r, nil
		}
	}
	return rules{}, fmt.Errorf("game %q: %w", g, engine.ErrUnknownVariant)
}

// List returns the games served, in display order.
func List() []engine.Game {
	gs := make([]engine.Game, len(all))
	for i, r := range all {
		gs[i] = r.game
	}
	return gs
}

// Variants returns the variants of game g; the first is its default.
// Errors wrap engine.ErrUnknownVariant.
func Variants(g engine.Game) ([]engine.Variant, error) {
	r, err := find(g)
	if err != nil {
		return nil, err
	}
	return r.variants(), nil
}

// Lookup returns one variant of game g; an empty id gives the default.
// Errors wrap engine.ErrUnknownVariant and list the ids that exist.
func Lookup(g engine.Game, variant string) (engine.Variant, error) {
	vs, err := Variants(g)
	if err != nil {
		return engine.Variant{}, err
	}
	if variant == "" {
		return vs[0], nil
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		if v.ID == variant {
			return v, nil
		}
		ids[i] = v.ID
	}
	return engine.Variant{}, fmt.Errorf("%s variant %q (want one of %v): %w", g, variant, ids, engine.ErrUnknownVariant)
}

// New returns the initial position of a game variant; an empty variant id
// gives the default. setup is Banqi's 32-letter layout (B1) and must be
// empty for the other games. Errors wrap engine.ErrUnknownVariant or
// engine.ErrBadSetup.
func New(g engine.Game, variant, setup string) (engine.Position, error) {
	v, err := Lookup(g, variant)
	if err != nil {
		return nil, err
	}
	r, _ := find(g)
	return r.newGame(v.ID, setup)
}

// Decode is the inverse of Position.Encode for game g.
func Decode(g engine.Game, s string) (engine.Position, error) {
	r, err := find(g)
	if err != nil {
		return nil, err
	}
	return r.decode(s)
}

// DecodeView is the inverse of View.Encode for game g.
func DecodeView(g engine.Game, s string) (engine.View, error) {
	r, err := find(g)
	if err != nil {
		return nil, err
	}
	return r.decodeView(s)
}
