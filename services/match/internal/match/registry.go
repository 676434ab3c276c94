package match

import (
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
)

// Registry is the Rules of every game the engine registers (package games).
type Registry struct{}

// Lookup implements Rules with games.Lookup.
func (Registry) Lookup(g engine.Game, variant string) (engine.Variant, error) {
	return games.Lookup(g, variant)
}

// New implements Rules with games.New.
func (Registry) New(g engine.Game, variant, setup string) (engine.Position, error) {
	return games.New(g, variant, setup)
}
