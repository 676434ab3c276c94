package lobby

import "tabuleiro.dev/pkg/engine"

// BotRating is a bot level's ladder rating in one variant: the
// Bradley-Terry rating on the Elo scale, anchored at easy = 0, printed by
// `tabuleiro bots ladder`, with its 95% interval. It labels the levels for
// players; it is not a Glicko-2 rating.
type BotRating struct {
	Level     BotLevel
	Rating    int
	Low, High int
}

// botRatings are the ladders measured, one line per level, easiest first.
// To update a variant, run its ladder and copy the "rating [low, high]"
// column of easy, medium, hard and expert (leave out the frozen past
// experts), then the comment above its lines. A variant without lines
// serves no ratings.
var botRatings = []struct {
	game    engine.Game
	variant string
	BotRating
}{
	// go run ./cmd/tabuleiro bots ladder --game quoridor --games 20 --budget 100 --parallel 2
	// 100 ms a ply, 20 games a pair, 2026-12-04 (the expert's current wall
	// table), a quiet 2-core machine (README.md).
	{engine.Quoridor, "standard", BotRating{BotEasy, 0, 0, 0}},
	{engine.Quoridor, "standard", BotRating{BotMedium, 281, 94, 468}},
	{engine.Quoridor, "standard", BotRating{BotHard, 700, 443, 957}},
	{engine.Quoridor, "standard", BotRating{BotExpert, 1025, 744, 1307}},

	// go run ./cmd/tabuleiro bots ladder --game corners --games 20 --budget 100 --parallel 2
	// 100 ms a ply, 20 games a pair, 2026-12-04, a quiet 2-core machine (README.md).
	{engine.Corners, "classic-3x3", BotRating{BotEasy, 0, 0, 0}},
	{engine.Corners, "classic-3x3", BotRating{BotMedium, 275, 98, 452}},
	{engine.Corners, "classic-3x3", BotRating{BotHard, 583, 365, 801}},
	{engine.Corners, "classic-3x3", BotRating{BotExpert, 1062, 793, 1330}},

	// go run ./cmd/tabuleiro bots ladder --game banqi --games 12 --budget 100 --parallel 2
	// 100 ms a ply, 12 games a pair, 2026-12-04, a quiet 2-core machine (README.md).
	{engine.Banqi, "standard", BotRating{BotEasy, 0, 0, 0}},
	{engine.Banqi, "standard", BotRating{BotMedium, 375, 118, 631}},
	{engine.Banqi, "standard", BotRating{BotHard, 607, 328, 885}},
	{engine.Banqi, "standard", BotRating{BotExpert, 821, 527, 1116}},
}

// BotRatings returns the ladder ratings of a variant's bot levels, easiest
// first, or nil when its ladder has not been measured.
func BotRatings(g engine.Game, variant string) []BotRating {
	var rs []BotRating
	for _, r := range botRatings {
		if r.game == g && r.variant == variant {
			rs = append(rs, r.BotRating)
		}
	}
	return rs
}
