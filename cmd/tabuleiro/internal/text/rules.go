package text

import "tabuleiro.dev/docs/rules"

// Rules returns the rules document of game (its id: "quoridor") in p's
// language, or English when the rules are not written in it.
func Rules(p *Printer, game string) (string, error) {
	return rules.TextIn(Or(p).Lang(), game)
}

// RulesSection returns one section of game's rules ("Q3.2") in p's
// language (see Rules).
func RulesSection(p *Printer, game, id string) (string, error) {
	return rules.SectionIn(Or(p).Lang(), game, id)
}
