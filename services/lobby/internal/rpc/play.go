package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
)

// FindMatch queues the caller and streams the ticket's progress.
func (s *Server) FindMatch(req *lobbyv1.FindMatchRequest, stream grpc.ServerStreamingServer[lobbyv1.FindMatchResponse]) error {
	ctx := stream.Context()
	p, err := s.caller(ctx)
	if err != nil {
		return toStatus(err)
	}
	release, err := s.d.Streams.Acquire(ctx, p.ID)
	if err != nil {
		return toStatus(err)
	}
	defer release()
	g, err := gameFromProto(req.GetGame(), true)
	if err != nil {
		return toStatus(err)
	}
	variant := s.variantID(g, req.GetVariant())
	// Every queue pairs by rating; an unrated variant uses the initial
	// rating for everyone.
	if p.Rating, err = s.ratingOf(ctx, p.ID, g, variant); err != nil {
		return toStatus(err)
	}
	if p.Rating == 0 {
		p.Rating = 1500
	}
	tc, err := clockFromProto(req.GetTimeControl())
	if err != nil {
		return toStatus(err)
	}
	if req.GetRated() {
		if err := s.mayQueueRated(ctx); err != nil {
			return err
		}
	}
	q := matchmaking.Queue{Game: g, Variant: variant, Clock: tc, Rated: req.GetRated()}
	t, err := s.d.Matchmaker.Enqueue(ctx, q, p)
	if err != nil {
		return toStatus(err)
	}
	w := s.d.Matchmaker.Config().Window
	if err := stream.Send(&lobbyv1.FindMatchResponse{Update: &lobbyv1.FindMatchResponse_Queued{Queued: &lobbyv1.Queued{
		TicketId: t.ID, Rating: p.Rating, RatingMin: p.Rating - w.Start, RatingMax: p.Rating + w.Start,
		QueuedAt: timestamppb.New(t.EnqueuedAt),
	}}}); err != nil {
		_, _ = s.d.Matchmaker.Cancel(context.WithoutCancel(ctx), t)
		return err
	}
	res, err := s.d.Matchmaker.Watch(ctx, t, req.GetAcceptBotOffer(), func(u matchmaking.Update) error {
		var m *lobbyv1.FindMatchResponse
		if u.BotOffered {
			m = &lobbyv1.FindMatchResponse{Update: &lobbyv1.FindMatchResponse_BotOffered{BotOffered: &lobbyv1.BotOffered{
				Level: s.suggestLevel(ctx, p.ID, g), WaitedMs: u.Waited.Milliseconds()}}}
			if err := stream.Send(m); err != nil {
				return err
			}
		}
		return stream.Send(&lobbyv1.FindMatchResponse{Update: &lobbyv1.FindMatchResponse_WindowWidened{WindowWidened: &lobbyv1.WindowWidened{
			RatingMin: p.Rating - u.Window, RatingMax: p.Rating + u.Window, WaitedMs: u.Waited.Milliseconds()}}})
	})
	if err != nil {
		return toStatus(err)
	}
	return stream.Send(&lobbyv1.FindMatchResponse{Update: &lobbyv1.FindMatchResponse_Matched{Matched: &lobbyv1.Matched{
		MatchId: res.MatchID, YourSeat: gamev1.Seat(res.Seat), Opponent: participant(res.Seat.Other(), res.Opponent),
	}}})
}

// suggestLevel offers the level just above the best one the player has
// beaten more often than lost to in the game; easy for a newcomer.
func (s *Server) suggestLevel(ctx context.Context, playerID string, g engine.Game) gamev1.BotLevel {
	st, err := s.d.Store.Stats(ctx, playerID)
	level := lobby.BotEasy
	if err != nil {
		return gamev1.BotLevel(level)
	}
	for _, b := range st.Bots {
		if b.Game == g && b.Wins > b.Losses && b.Level >= level && b.Level < lobby.BotExpert {
			level = b.Level + 1
		}
	}
	return gamev1.BotLevel(level)
}

// PlayBot creates a match against a bot; never rated. Who moves first is
// drawn at random unless the caller chooses (Q5).
func (s *Server) PlayBot(ctx context.Context, req *lobbyv1.PlayBotRequest) (*lobbyv1.PlayBotResponse, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := gameFromProto(req.GetGame(), true)
	if err != nil {
		return nil, toStatus(err)
	}
	seat, err := seatFromProto(req.GetSeat())
	if err != nil {
		return nil, toStatus(err)
	}
	tc, err := clockFromProto(req.GetTimeControl())
	if err != nil {
		return nil, toStatus(err)
	}
	v, err := lobby.CheckVariant(s.d.Lookup, g, s.variantID(g, req.GetVariant()), tc, false)
	if err != nil {
		return nil, toStatus(err)
	}
	me := lobby.Participant{PlayerID: p.ID, DisplayName: p.DisplayName}
	spec := lobby.MatchSpec{RequestID: lobby.NewID("bot-"), Game: g, Variant: v.ID, Clock: tc, First: me}
	if v.Players == 2 {
		level := lobby.BotLevel(req.GetLevel())
		if !level.Valid() {
			return nil, toStatus(lobby.Invalid("level", "unknown or unspecified bot level %v", req.GetLevel()))
		}
		if seat == engine.NoSeat {
			seat = engine.First
			if rand.IntN(2) == 1 {
				seat = engine.Second
			}
		}
		bot := lobby.Participant{Bot: level, DisplayName: "Bot (" + level.String() + ")"}
		spec.First, spec.Second = me, bot
		if seat == engine.Second {
			spec.First, spec.Second = bot, me
		}
	} else {
		seat = engine.First
	}
	if err := s.limit(ctx, s.d.Limits.PlayBot, "playbot"); err != nil {
		return nil, err
	}
	// One PlayBot at a time per player (any instance), so that concurrent
	// calls cannot all pass the cap on live bot games.
	done, err := s.d.BotStarts.Acquire(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := s.checkBotCap(ctx, p.ID); err != nil {
		return nil, err
	}
	// Reserving the caller withdraws their tickets (ending a FindMatch
	// stream that offered this bot) and refuses a second live match.
	if err := s.d.Matchmaker.Reserve(ctx, spec.RequestID, p.ID); err != nil {
		return nil, toStatus(err)
	}
	id, err := s.d.Matches.CreateMatch(ctx, spec)
	bg := context.WithoutCancel(ctx)
	if err != nil {
		return nil, toStatus(errors.Join(err, s.d.Matchmaker.Release(bg, spec.RequestID, p.ID)))
	}
	if err := s.d.Matchmaker.Confirm(bg, spec.RequestID, id, p.ID); err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.PlayBotResponse{MatchId: id, YourSeat: gamev1.Seat(seat)}, nil
}

// checkBotCap refuses a bot game to a player who already has
// MaxBotMatches live bot matches (only where a player may have several
// live matches at once; otherwise the one-live-match rule refuses it).
func (s *Server) checkBotCap(ctx context.Context, playerID string) error {
	if s.d.MaxBotMatches <= 0 || s.d.Live == nil {
		return nil
	}
	ms, err := s.d.Live.ListMatches(ctx, playerID)
	if err != nil {
		return toStatus(err)
	}
	n := 0
	for _, m := range ms {
		for _, seat := range m.GetSeats() {
			if seat.GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED {
				n++
				break
			}
		}
	}
	if n >= s.d.MaxBotMatches {
		return ratelimit.Exhausted(fmt.Sprintf("you already have %d live bot games (at most %d); finish or resign one", n, s.d.MaxBotMatches), 0)
	}
	return nil
}

// mayQueueRated refuses a guest that is not established under the
// fair-play rule for rated play (sqlstore.Fairness: casual games played
// or a day's age) with FAILED_PRECONDITION and RATED_NOT_YET, saying
// where it stands. Accounts queue rated (the ratings processor still
// leaves a newcomer's games unrated); with PostgreSQL unreachable nothing
// is known against the guest and it queues, as ratingOf lets it.
func (s *Server) mayQueueRated(ctx context.Context) error {
	pr, _ := auth.FromContext(ctx)
	if !pr.Guest {
		return nil
	}
	n, newcomer, err := s.d.Store.Newcomer(ctx, pr.PlayerID())
	if rpcerr.Unreachable(err) {
		slog.WarnContext(ctx, "newcomer unknown: PostgreSQL unreachable; queueing rated", "player_id", pr.PlayerID(), "err", err)
		return nil
	}
	if err != nil {
		return toStatus(err)
	}
	if !newcomer {
		return nil
	}
	hours := int(math.Ceil(n.OpensAt.Sub(s.d.Now()).Hours()))
	return reason.Error(codes.FailedPrecondition, reason.RatedNotYet,
		fmt.Sprintf("a guest queues rated once it has finished %d casual games or is a day old: it has finished %d, and is a day old in %d hours",
			n.MinCasual, n.Casual, hours),
		map[string]string{"casual_games": strconv.Itoa(n.Casual), "min_casual_games": strconv.Itoa(n.MinCasual), "hours_left": strconv.Itoa(hours)})
}
