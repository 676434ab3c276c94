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
	// go run ./cmd/tabuleiro bots ladder --game quoridor --variant standard --games 12 --budget 100
	// 100 ms a ply, 12 games a pair, 2026-12-01 (README.md); expert is the expert before the
	// current one.
	{engine.Quoridor, "standard", BotRating{BotEasy, 0, 0, 0}},
	{engine.Quoridor, "standard", BotRating{BotMedium, 416, 160, 671}},
	{engine.Quoridor, "standard", BotRating{BotHard, 663, 393, 933}},
	{engine.Quoridor, "standard", BotRating{BotExpert, 649, 379, 918}},

	// go run ./cmd/tabuleiro bots ladder --game corners --variant classic-3x3 --games 4 --budget 100
	// 100 ms a ply, 4 games a pair, 2026-12-01 (README.md); expert is the expert before the
	// current one (now expert-1).
	{engine.Corners, "classic-3x3", BotRating{BotEasy, 0, 0, 0}},
	{engine.Corners, "classic-3x3", BotRating{BotMedium, 93, -161, 347}},
	{engine.Corners, "classic-3x3", BotRating{BotHard, 348, 68, 627}},
	{engine.Corners, "classic-3x3", BotRating{BotExpert, 482, 182, 782}},

	// go run ./cmd/tabuleiro bots ladder --game banqi --variant standard --games 2 --budget 50
	// 50 ms a ply, 2 games a pair, 2026-12-01 (README.md); expert is the expert before the
	// current one (now expert-1).
	{engine.Banqi, "standard", BotRating{BotEasy, 0, 0, 0}},
	{engine.Banqi, "standard", BotRating{BotMedium, 183, -122, 488}},
	{engine.Banqi, "standard", BotRating{BotHard, 401, 67, 736}},
	{engine.Banqi, "standard", BotRating{BotExpert, 289, -26, 604}},
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
