// Package matchclient creates matches through match.v1 MatchService: the
// production lobby.MatchCreator. The connection carries the lobby's service
// credential (auth.ServiceCredentials), which CreateMatch requires.
package matchclient

import (
	"context"
	"fmt"
	"math"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Client is a lobby.MatchCreator over a MatchService client.
type Client struct{ c matchv1.MatchServiceClient }

// New returns a Client.
func New(c matchv1.MatchServiceClient) *Client { return &Client{c: c} }

var _ lobby.MatchCreator = (*Client)(nil)

// CreateMatch calls MatchService.CreateMatch with spec.RequestID as the
// idempotency key.
func (c *Client) CreateMatch(ctx context.Context, spec lobby.MatchSpec) (string, error) {
	req := &matchv1.CreateMatchRequest{
		RequestId: spec.RequestID, Game: GameToProto(string(spec.Game)), Variant: spec.Variant,
		First: seat(spec.First), Rated: spec.Rated, TimeControl: ClockToProto(spec.Clock),
		Private: spec.Private, OneDevice: spec.OneDevice,
	}
	if spec.Second != (lobby.Participant{}) {
		req.Second = seat(spec.Second)
	}
	res, err := c.c.CreateMatch(ctx, req)
	if err != nil {
		return "", fmt.Errorf("create match %s: %w", spec.RequestID, err)
	}
	return res.GetMatchId(), nil
}

func seat(p lobby.Participant) *matchv1.SeatSpec {
	if p.Bot != lobby.NoBot {
		return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_BotLevel{BotLevel: gamev1.BotLevel(p.Bot)}}
	}
	ps := &matchv1.PlayerSeat{PlayerId: p.PlayerID, DisplayName: p.DisplayName, Username: p.Username}
	if p.Rating != 0 {
		r := int32(math.Round(p.Rating))
		ps.Rating = &r
	}
	return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: ps}}
}

// GameToProto maps an engine game id to the enum; GAME_UNSPECIFIED for "".
func GameToProto(g string) gamev1.Game {
	switch g {
	case "quoridor":
		return gamev1.Game_GAME_QUORIDOR
	case "corners":
		return gamev1.Game_GAME_CORNERS
	case "banqi":
		return gamev1.Game_GAME_BANQI
	}
	return gamev1.Game_GAME_UNSPECIFIED
}

// ClockToProto maps a clock; nil for no clock.
func ClockToProto(tc lobby.TimeControl) *gamev1.TimeControl {
	if tc.None() {
		return nil
	}
	return &gamev1.TimeControl{BaseMs: tc.BaseMS, IncrementMs: tc.IncrementMS}
}

// ListMatches returns the match service's live matches (all, or those of
// playerID), at most 500; only those of matchIDs when given, which the
// match service reads alone instead of every shard of its live index.
func (c *Client) ListMatches(ctx context.Context, playerID string, matchIDs ...string) ([]*matchv1.MatchSummary, error) {
	res, err := c.c.ListMatches(ctx, &matchv1.ListMatchesRequest{PlayerId: playerID, Limit: 500, MatchIds: matchIDs})
	if err != nil {
		return nil, fmt.Errorf("list matches: %w", err)
	}
	return res.GetMatches(), nil
}
