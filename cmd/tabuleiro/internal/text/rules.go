package text

import "tabuleiro.dev/docs/rules"

// Rules returns the rules document of game (its id: "quoridor") in p's
// language. The rules documents are English for now: every language reads
// them until module tabuleiro.dev/docs/rules has them in others.
func Rules(p *Printer, game string) (string, error) {
	return rules.Text(game)
}

// RulesSection returns one section of game's rules ("Q3.2") in p's
// language (see Rules).
func RulesSection(p *Printer, game, id string) (string, error) {
	return rules.Section(game, id)
}
