package rpc

import (
	"context"
	"log/slog"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchclient"
)

// shownName is how a player is shown: an account by its username, a
// guest by its display name.
func shownName(displayName, username string) string {
	if username != "" {
		return username
	}
	return displayName
}

// Usernames finds the accounts among player ids (sqlstore.Store.Usernames).
type Usernames interface {
	Usernames(ctx context.Context, ids []string) (map[string]string, error)
}

// namedMatches is a lobby.MatchCreator that names every account's seat by
// its username before creating the match.
type namedMatches struct {
	lobby.MatchCreator
	names Usernames
}

// NamedMatches wraps mc so that the matches it creates show each
// account's seat by its username (Participant.Username and DisplayName),
// whatever name the seat was queued or seated under (a token issued
// before the account was claimed carries the guest's name). With the
// store unreachable the seats keep their names: matchmaking, rooms and
// bot games go on without PostgreSQL.
func NamedMatches(mc lobby.MatchCreator, names Usernames) lobby.MatchCreator {
	if mc == nil {
		return nil
	}
	return namedMatches{MatchCreator: mc, names: names}
}

func (n namedMatches) CreateMatch(ctx context.Context, spec lobby.MatchSpec) (string, error) {
	found, err := n.names.Usernames(ctx, []string{spec.First.PlayerID, spec.Second.PlayerID})
	if err != nil {
		slog.WarnContext(ctx, "usernames unknown: the match's seats keep their names", "request_id", spec.RequestID, "err", err)
	}
	for _, p := range []*lobby.Participant{&spec.First, &spec.Second} {
		if u, ok := found[p.PlayerID]; ok && p.PlayerID != "" {
			p.Username, p.DisplayName = u, u
		}
	}
	return n.MatchCreator.CreateMatch(ctx, spec)
}

// maxRecentGames is the most recent games GetProfile returns.
const maxRecentGames = 50

// GetProfile returns an account's public profile by username.
func (s *Server) GetProfile(ctx context.Context, req *lobbyv1.GetProfileRequest) (*lobbyv1.GetProfileResponse, error) {
	name := req.GetUsername()
	if name == "" {
		return nil, toStatus(lobby.Invalid("username", "is required"))
	}
	if len(name) > 4*lobby.MaxUsernameLen {
		return nil, toStatus(lobby.Invalid("username", "too long (%d bytes; no username has more than %d characters)", len(name), lobby.MaxUsernameLen))
	}
	n := int(req.GetRecentGames())
	if n < 0 || n > maxRecentGames {
		return nil, toStatus(lobby.Invalid("recent_games", "must be 0 to %d, got %d", maxRecentGames, n))
	}
	if n == 0 {
		n = 10
	}
	if err := s.limit(ctx, s.d.Limits.Profile, "profile"); err != nil {
		return nil, err
	}
	key, ok := accounts.Key(name)
	if !ok { // no PRECIS username names an account
		return nil, toStatus(lobby.ErrNotFound)
	}
	p, err := s.d.Store.Profile(ctx, key, n)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &lobbyv1.Profile{Username: p.Username, PlayerId: p.PlayerID, MemberSince: ts(p.MemberSince)}
	for _, r := range p.Ratings {
		out.Ratings = append(out.Ratings, &lobbyv1.Rating{Game: matchclient.GameToProto(string(r.Game)), Variant: r.Variant,
			Rating: r.Rating.Rating, Deviation: r.Rating.Deviation, Volatility: r.Rating.Volatility, Games: int32(r.Games), UpdatedAt: ts(r.UpdatedAt)})
	}
	for _, r := range p.Records {
		out.Records = append(out.Records, &lobbyv1.GameRecordSummary{Game: matchclient.GameToProto(string(r.Game)),
			Wins: int32(r.Wins), Losses: int32(r.Losses), Draws: int32(r.Draws)})
	}
	for _, g := range p.Recent {
		out.RecentGames = append(out.RecentGames, summaryToProto(g, p.PlayerID))
	}
	return &lobbyv1.GetProfileResponse{Profile: out}, nil
}
