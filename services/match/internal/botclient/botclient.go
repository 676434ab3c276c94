// Package botclient asks tabuleiro.bot.v1.BotService for a bot seat's ply,
// sending only that seat's view.
package botclient

import (
	"context"
	"fmt"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/view"
)

// Client implements match.Bot over gRPC.
type Client struct{ c botv1.BotServiceClient }

var _ match.Bot = Client{}

// New returns a Client.
func New(c botv1.BotServiceClient) Client { return Client{c: c} }

// SelectPly implements match.Bot.
func (c Client) SelectPly(ctx context.Context, req match.BotRequest) (match.BotAnswer, error) {
	st := &match.State{ID: req.MatchID, Game: req.Game, Variant: req.Variant}
	resp, err := c.c.SelectPly(ctx, &botv1.SelectPlyRequest{
		View: view.GameViewOf(st, req.View, req.Seat), Level: gamev1.BotLevel(req.Level),
		BudgetMs: req.BudgetMS, Seed: req.Seed, PlayerId: req.PlayerID,
	})
	if err != nil {
		return match.BotAnswer{}, fmt.Errorf("select ply: %w", err)
	}
	return match.BotAnswer{Notation: resp.GetNotation(), PlyNumber: int(resp.GetPlyNumber())}, nil
}
