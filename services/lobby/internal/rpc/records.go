package rpc

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

func liveSummary(m *matchv1.MatchSummary, viewer string) *lobbyv1.MatchSummary {
	out := &lobbyv1.MatchSummary{
		MatchId: m.GetMatchId(), Game: m.GetGame(), Variant: m.GetVariant(), Rated: m.GetRated(),
		TimeControl: m.GetTimeControl(), StartedAt: m.GetCreatedAt(), PlyCount: m.GetPlyCount(),
		Spectators: m.GetSpectators(), Participants: m.GetSeats(),
		Outcome: &gamev1.Outcome{Result: gamev1.Result_RESULT_ONGOING},
	}
	// started_at is the creation (lobby.proto), as a finished game's is;
	// a summary without it (an older match service) gives the first ply's.
	if out.StartedAt == nil {
		out.StartedAt = m.GetStartedAt()
	}
	for _, p := range m.GetSeats() {
		if viewer != "" && p.GetPlayerId() == viewer {
			out.YourSeat = p.GetSeat()
		}
	}
	return out
}

func (s *Server) liveMatches(ctx context.Context, playerID string) ([]*matchv1.MatchSummary, error) {
	if s.d.Live == nil {
		return nil, nil
	}
	return s.d.Live.ListMatches(ctx, playerID)
}

// meanRating is the mean rating of a match's seats, unrated seats
// counting as 0 (lobby.v1 LIVE_MATCH_ORDER_HIGHEST_RATED).
func meanRating(m *matchv1.MatchSummary) float64 {
	var sum float64
	for _, p := range m.GetSeats() {
		sum += float64(p.GetRating())
	}
	return sum / 2
}

// ListLiveMatches lists the match service's live matches (ListMatches):
// most watched first, ties by highest mean rating — or highest rated
// first, ties by spectators — then newest first.
func (s *Server) ListLiveMatches(ctx context.Context, req *lobbyv1.ListLiveMatchesRequest) (*lobbyv1.ListLiveMatchesResponse, error) {
	g, err := gameFromProto(req.GetGame(), false)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.checkFilter(g, req.GetVariant()); err != nil {
		return nil, toStatus(err)
	}
	if err := checkPageSize(req.GetPageSize()); err != nil {
		return nil, toStatus(err)
	}
	size := int(req.GetPageSize())
	if size == 0 {
		size = 20
	}
	switch req.GetOrder() {
	case lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_UNSPECIFIED, lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_MOST_WATCHED,
		lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_HIGHEST_RATED:
	default:
		return nil, toStatus(lobby.Invalid("order", "unknown order %d", req.GetOrder()))
	}
	offset := 0
	if tok := req.GetPageToken(); tok != "" {
		if offset, err = strconv.Atoi(tok); err != nil || offset < 0 {
			return nil, toStatus(lobby.Invalid("page_token", "malformed"))
		}
	}
	ms, err := s.liveMatches(ctx, "")
	if err != nil {
		return nil, toStatus(err)
	}
	want := matchclient.GameToProto(string(g))
	ms = slices.DeleteFunc(ms, func(m *matchv1.MatchSummary) bool {
		// A private room's match is listed to nobody here: only its own
		// players see it (ListActiveMatches).
		return m.GetPrivate() || (g != "" && m.GetGame() != want) || (req.GetVariant() != "" && m.GetVariant() != req.GetVariant())
	})
	byRating := req.GetOrder() == lobbyv1.LiveMatchOrder_LIVE_MATCH_ORDER_HIGHEST_RATED
	slices.SortStableFunc(ms, func(a, b *matchv1.MatchSummary) int {
		watched := cmp.Compare(b.GetSpectators(), a.GetSpectators())
		rated := cmp.Compare(meanRating(b), meanRating(a))
		if byRating {
			watched, rated = rated, watched
		}
		if watched != 0 {
			return watched
		}
		if rated != 0 {
			return rated
		}
		return b.GetCreatedAt().AsTime().Compare(a.GetCreatedAt().AsTime())
	})
	res := &lobbyv1.ListLiveMatchesResponse{}
	offset = min(offset, len(ms)) // a token past the end is an empty last page (and offset+size cannot overflow)
	end := offset + min(size, len(ms)-offset)
	for i := offset; i < end; i++ {
		res.Matches = append(res.Matches, liveSummary(ms[i], ""))
	}
	if end < len(ms) {
		res.NextPageToken = strconv.Itoa(end)
	}
	return res, nil
}

// ListActiveMatches lists the caller's unfinished matches (the match
// service's ListMatches for the player), newest first.
func (s *Server) ListActiveMatches(ctx context.Context, _ *lobbyv1.ListActiveMatchesRequest) (*lobbyv1.ListActiveMatchesResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	ms, err := s.liveMatches(ctx, p.ID)
	if err != nil {
		return nil, toStatus(err)
	}
	slices.SortStableFunc(ms, func(a, b *matchv1.MatchSummary) int {
		return b.GetCreatedAt().AsTime().Compare(a.GetCreatedAt().AsTime())
	})
	res := &lobbyv1.ListActiveMatchesResponse{}
	for _, m := range ms {
		res.Matches = append(res.Matches, liveSummary(m, p.ID))
	}
	return res, nil
}

func seatToProto(seat engine.Seat, st sqlstore.Seat) *gamev1.Participant {
	return &gamev1.Participant{Seat: gamev1.Seat(seat), PlayerId: st.PlayerID, DisplayName: st.DisplayName, BotLevel: gamev1.BotLevel(st.Bot),
		Username: st.Username}
}

func summaryToProto(g sqlstore.Summary, viewer string) *lobbyv1.MatchSummary {
	out := &lobbyv1.MatchSummary{
		MatchId: g.GameID, Game: matchclient.GameToProto(string(g.Game)), Variant: g.Variant, Rated: g.Rated,
		TimeControl: matchclient.ClockToProto(g.Clock), PlyCount: int32(g.Plies), YourSeat: gamev1.Seat(g.SeatOf(viewer)),
		StartedAt: ts(g.StartedAt), EndedAt: ts(g.EndedAt),
		Outcome:       &gamev1.Outcome{Result: resultToProto(g.Outcome.Result), Winner: gamev1.Seat(g.Outcome.Winner), Reason: gamev1.Reason(g.Outcome.Reason)},
		UnratedReason: unratedToProto[g.UnratedReason],
	}
	out.Participants = append(out.Participants, seatToProto(engine.First, g.First))
	if g.Second != nil {
		out.Participants = append(out.Participants, seatToProto(engine.Second, *g.Second))
	}
	return out
}

// unratedToProto maps the store's reasons ("" and unknown ones to
// UNSPECIFIED).
var unratedToProto = map[string]lobbyv1.UnratedReason{
	sqlstore.UnratedCasual:          lobbyv1.UnratedReason_UNRATED_REASON_CASUAL,
	sqlstore.UnratedAborted:         lobbyv1.UnratedReason_UNRATED_REASON_ABORTED,
	sqlstore.UnratedNotTwoPlayers:   lobbyv1.UnratedReason_UNRATED_REASON_NOT_TWO_PLAYERS,
	sqlstore.UnratedNewPlayer:       lobbyv1.UnratedReason_UNRATED_REASON_NEW_PLAYER,
	sqlstore.UnratedRepeatOpponents: lobbyv1.UnratedReason_UNRATED_REASON_REPEAT_OPPONENTS,
	sqlstore.UnratedRepeatAddresses: lobbyv1.UnratedReason_UNRATED_REASON_REPEAT_ADDRESSES,
}

func resultToProto(r engine.Result) gamev1.Result {
	switch r {
	case engine.Win:
		return gamev1.Result_RESULT_WIN
	case engine.Draw:
		return gamev1.Result_RESULT_DRAW
	}
	return gamev1.Result_RESULT_ONGOING
}

func (s *Server) playerOrCaller(ctx context.Context, id string) (string, error) {
	if id != "" {
		if err := checkID("player_id", id); err != nil {
			return "", err
		}
		if _, err := s.d.Store.Player(ctx, id); err != nil {
			return "", err
		}
		return id, nil
	}
	p, err := s.caller(ctx)
	return p.ID, err
}

// ListGames lists a player's finished games, newest first.
func (s *Server) ListGames(ctx context.Context, req *lobbyv1.ListGamesRequest) (*lobbyv1.ListGamesResponse, error) {
	id, err := s.playerOrCaller(ctx, req.GetPlayerId())
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := gameFromProto(req.GetGame(), false)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := checkPageSize(req.GetPageSize()); err != nil {
		return nil, toStatus(err)
	}
	viewer, _ := s.caller(ctx)
	page, err := s.d.Store.History(ctx, id, viewer.ID, g, int(req.GetPageSize()), req.GetPageToken())
	if err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.ListGamesResponse{NextPageToken: page.Next}
	for _, gs := range page.Games {
		res.Games = append(res.Games, summaryToProto(gs, id))
	}
	return res, nil
}

// GetGame returns one finished game's record.
func (s *Server) GetGame(ctx context.Context, req *lobbyv1.GetGameRequest) (*lobbyv1.GetGameResponse, error) {
	p, _ := s.caller(ctx)
	if req.GetGameId() == "" {
		return nil, toStatus(lobby.Invalid("game_id", "is required"))
	}
	if err := checkID("game_id", req.GetGameId()); err != nil {
		return nil, toStatus(err)
	}
	rec, err := s.d.Store.Game(ctx, req.GetGameId())
	if err != nil {
		return nil, toStatus(err)
	}
	if rec.Private && rec.SeatOf(p.ID) == engine.NoSeat && (p.ID == "" || !slices.Contains(rec.Invited, p.ID)) {
		// Another's private game (neither played nor invited to watch
		// it): the same answer as no such game.
		return nil, toStatus(fmt.Errorf("game %s: %w", lobby.Clip(req.GetGameId()), lobby.ErrNotFound))
	}
	out := &lobbyv1.GameRecord{Summary: summaryToProto(rec.Summary, p.ID), Seed: rec.Seed, Layout: rec.Layout,
		SeedCommitment: seedCommitment(rec.Seed)}
	layout, _ := banqi.ParseLayout(rec.Layout) // other games: no layout, nothing revealed
	seat := engine.First
	for i, pl := range rec.Plies {
		out.Plies = append(out.Plies, &gamev1.Ply{Number: int32(i + 1), Seat: gamev1.Seat(seat), Notation: pl.Notation,
			ClockRemainingMs: pl.ClockMS, ThinkMs: pl.ThinkMS, Revealed: revealed(rec.Game, layout, pl.Notation)})
		seat = seat.Other()
		if rec.Second == nil {
			seat = engine.First
		}
	}
	for _, c := range rec.Changes {
		out.RatingChanges = append(out.RatingChanges, &lobbyv1.RatingChange{PlayerId: c.PlayerID, Before: c.Before, After: c.After})
	}
	return &lobbyv1.GetGameResponse{Record: out}, nil
}

// seedCommitment is the commitment of a Banqi seed (lowercase hex), ""
// for no seed.
func seedCommitment(seed string) string {
	b, err := hex.DecodeString(seed)
	if err != nil || len(b) != 32 {
		return ""
	}
	return banqi.SeedCommitment([32]byte(b))
}

// revealed is the piece a Banqi reveal turned face up: the layout's piece
// on its square, since a face-down piece never moves. Unspecified
// for every other ply and game.
func revealed(g engine.Game, layout banqi.Layout, notation string) gamev1.BanqiPiece {
	if g != engine.Banqi {
		return gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED
	}
	m, err := banqi.ParseMove(notation)
	if err != nil || m.Kind() != banqi.KindReveal || !layout[m.From()].Valid() {
		return gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED
	}
	// game.v1 BanqiPiece: red K A B R N C P are 1–7, black k a b r n c p 8–14.
	if i := strings.IndexByte("KABRNCPkabrncp", layout[m.From()].Letter()); i >= 0 {
		return gamev1.BanqiPiece(i + 1)
	}
	return gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED
}

// GetStats returns a player's ratings and records against the bots.
func (s *Server) GetStats(ctx context.Context, req *lobbyv1.GetStatsRequest) (*lobbyv1.GetStatsResponse, error) {
	id, err := s.playerOrCaller(ctx, req.GetPlayerId())
	if err != nil {
		return nil, toStatus(err)
	}
	st, err := s.d.Store.Stats(ctx, id)
	if err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.GetStatsResponse{PlayerId: id, DisplayName: st.Player.DisplayName, Username: st.Player.Username}
	for _, r := range st.Ratings {
		res.Ratings = append(res.Ratings, &lobbyv1.Rating{Game: matchclient.GameToProto(string(r.Game)), Variant: r.Variant,
			Rating: r.Rating.Rating, Deviation: r.Rating.Deviation, Volatility: r.Rating.Volatility, Games: int32(r.Games), UpdatedAt: ts(r.UpdatedAt)})
	}
	for _, b := range st.Bots {
		res.BotRecords = append(res.BotRecords, &lobbyv1.BotRecord{Game: matchclient.GameToProto(string(b.Game)), Level: gamev1.BotLevel(b.Level),
			Wins: int32(b.Wins), Losses: int32(b.Losses), Draws: int32(b.Draws)})
	}
	for why, n := range st.Unrated {
		if r, ok := unratedToProto[why]; ok {
			res.UnratedGames = append(res.UnratedGames, &lobbyv1.UnratedGames{Reason: r, Games: int32(n)})
		}
	}
	slices.SortFunc(res.UnratedGames, func(a, b *lobbyv1.UnratedGames) int { return int(a.GetReason() - b.GetReason()) })
	return res, nil
}

// maxID is the longest game or player id a request may carry, in bytes
// (as the match service's).
const maxID = 128

// checkID refuses an id longer than maxID, or one that is not UTF-8 or
// holds a NUL (no id is), without repeating it.
func checkID(field, id string) error {
	if len(id) > maxID {
		return lobby.Invalid(field, "too long (%d bytes; at most %d)", len(id), maxID)
	}
	if !utf8.ValidString(id) || strings.ContainsRune(id, 0) {
		return lobby.Invalid(field, "must be UTF-8 without NUL bytes")
	}
	return nil
}
