package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// Reviewer is the bot service's review RPC (bot.v1 ReviewGame).
type Reviewer interface {
	ReviewGame(ctx context.Context, in *botv1.ReviewGameRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[botv1.ReviewGameResponse], error)
}

// ReviewNodes is the expert's budget per ply of the reviews the lobby
// asks for: 0, the bot service's default.
const ReviewNodes = 0

// reviewVersion remembers the key (storedKey) of the bot service's reviews, to
// find a stored review before asking for a new one; it starts empty (the
// first review after a start asks the bot service, which answers a game
// of no plies at once) and follows the version of the last review made.
type reviewVersion struct {
	mu sync.Mutex
	v  string
}

func (r *reviewVersion) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.v
}

func (r *reviewVersion) set(v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.v = v
}

// storedKey is the key of a stored review: the engine version and the
// node budget.
func storedKey(version string, nodes int64) string { return fmt.Sprintf("%s@%d", version, nodes) }

// ReviewGame reviews a finished game the caller may see.
func (s *Server) ReviewGame(req *lobbyv1.ReviewGameRequest, stream grpc.ServerStreamingServer[lobbyv1.ReviewGameResponse]) error {
	ctx := stream.Context()
	p, err := caller(ctx)
	if err != nil {
		return toStatus(err)
	}
	if req.GetGameId() == "" {
		return toStatus(lobby.Invalid("game_id", "is required"))
	}
	if err := checkID("game_id", req.GetGameId()); err != nil {
		return toStatus(err)
	}
	rec, err := s.d.Store.Game(ctx, req.GetGameId())
	if err != nil {
		return toStatus(err)
	}
	if !mayView(rec, p.ID) {
		return toStatus(fmt.Errorf("game %s: %w", lobby.Clip(req.GetGameId()), lobby.ErrNotFound))
	}
	if rec.Second == nil {
		return toStatus(fmt.Errorf("%w: a one-player game (training) has no opponent to review it against", lobby.ErrPrecondition))
	}
	if s.d.Reviewer == nil {
		return reason.Error(codes.Unavailable, reason.ReviewUnavailable, "this server has no bot service to review games with", nil)
	}
	// A review stored at the bot service's current version costs nothing.
	key := s.reviews.get()
	if key == "" {
		if key, err = s.botVersion(ctx); err != nil {
			return err
		}
	}
	if r, ok, err := s.storedReview(ctx, rec.GameID, key); err != nil {
		return toStatus(err)
	} else if ok {
		return stream.Send(&lobbyv1.ReviewGameResponse{Event: &lobbyv1.ReviewGameResponse_Review{Review: r}})
	}
	if err := s.reviewLimit(ctx, p.ID); err != nil {
		return err
	}
	r, err := s.runReview(ctx, reviewRequest(rec, p.ID, s.reviewNodes()), func(pr *gamev1.ReviewProgress) error {
		return stream.Send(&lobbyv1.ReviewGameResponse{Event: &lobbyv1.ReviewGameResponse_Progress{Progress: pr}})
	})
	if err != nil {
		return err
	}
	key = storedKey(r.GetEngineVersion(), r.GetNodes())
	s.reviews.set(key)
	js, err := protojson.Marshal(r)
	if err == nil {
		err = s.d.Store.SaveReview(ctx, rec.GameID, key, string(js))
	}
	if err != nil {
		return toStatus(err)
	}
	return stream.Send(&lobbyv1.ReviewGameResponse{Event: &lobbyv1.ReviewGameResponse_Review{Review: r}})
}

func (s *Server) reviewNodes() int64 {
	if s.d.ReviewNodes > 0 {
		return s.d.ReviewNodes
	}
	return ReviewNodes
}

// mayView reports whether player id may see a finished game: a public
// one, or a private one they played or were invited to watch (as GetGame).
func mayView(rec sqlstore.Record, id string) bool {
	return !rec.Private || rec.SeatOf(id) != engine.NoSeat || (id != "" && slices.Contains(rec.Invited, id))
}

// reviewLimit takes one review of the caller's hourly allowance.
func (s *Server) reviewLimit(ctx context.Context, playerID string) error {
	err := s.d.Limiter.Allow(ctx, s.d.Limits.Review, "review", "player:"+playerID)
	if status.Code(err) != codes.ResourceExhausted {
		return err
	}
	delay, _ := ratelimit.RetryDelay(err)
	secs := int((delay + 999_999_999) / 1_000_000_000)
	st := reason.New(codes.ResourceExhausted, reason.ReviewLimit,
		fmt.Sprintf("too many game reviews (%s); retry in %ds", s.d.Limits.Review.Describe(), secs),
		map[string]string{"retry_seconds": fmt.Sprint(secs)})
	return st.Err()
}

// botVersion asks the bot service for the key of its reviews (engine
// version and node budget, storedKey): the review of a game of no plies,
// which it answers at once.
func (s *Server) botVersion(ctx context.Context) (string, error) {
	r, err := s.runReview(ctx, &botv1.ReviewGameRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Nodes: s.reviewNodes()}, nil)
	if err != nil {
		return "", err
	}
	key := storedKey(r.GetEngineVersion(), r.GetNodes())
	s.reviews.set(key)
	return key, nil
}

// runReview runs a review on the bot service, passing its progress on.
func (s *Server) runReview(ctx context.Context, req *botv1.ReviewGameRequest, progress func(*gamev1.ReviewProgress) error) (*gamev1.GameReview, error) {
	st, err := s.d.Reviewer.ReviewGame(ctx, req)
	if err != nil {
		return nil, botStatus(err)
	}
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return nil, status.Error(codes.Internal, "the bot service ended the review without a result")
		}
		if err != nil {
			return nil, botStatus(err)
		}
		if r := m.GetReview(); r != nil {
			return r, nil
		}
		if pr := m.GetProgress(); pr != nil && progress != nil {
			if err := progress(pr); err != nil {
				return nil, err
			}
		}
	}
}

// botStatus passes the bot service's refusals on (BOT_BUSY, a context's
// end); anything else about a recorded game is the lobby's own failure.
func botStatus(err error) error {
	st := status.Convert(err)
	switch st.Code() {
	case codes.ResourceExhausted, codes.Canceled, codes.DeadlineExceeded, codes.Unavailable:
		return err
	}
	return status.Errorf(codes.Internal, "review: %s", st.Message())
}

// storedReview returns the stored review of a game at key.
func (s *Server) storedReview(ctx context.Context, gameID, key string) (*gamev1.GameReview, bool, error) {
	js, ok, err := s.d.Store.Review(ctx, gameID, key)
	if err != nil || !ok {
		return nil, false, err
	}
	var r gamev1.GameReview
	if err := protojson.Unmarshal([]byte(js), &r); err != nil {
		return nil, false, fmt.Errorf("stored review of %s: %w", gameID, err)
	}
	return &r, true, nil
}

var gameToProto = map[engine.Game]gamev1.Game{
	engine.Quoridor: gamev1.Game_GAME_QUORIDOR,
	engine.Corners:  gamev1.Game_GAME_CORNERS,
	engine.Banqi:    gamev1.Game_GAME_BANQI,
}

// reviewRequest is the bot service's request for a recorded game: its
// plies and, for a Banqi reveal, the piece it showed; never the layout.
func reviewRequest(rec sqlstore.Record, playerID string, nodes int64) *botv1.ReviewGameRequest {
	req := &botv1.ReviewGameRequest{Game: gameToProto[rec.Game], Variant: rec.Variant, Nodes: nodes, PlayerId: playerID}
	layout, _ := banqi.ParseLayout(rec.Layout)
	for i, pl := range rec.Plies {
		req.Plies = append(req.Plies, &gamev1.Ply{Number: int32(i + 1), Notation: strings.TrimSpace(pl.Notation),
			Revealed: revealed(rec.Game, layout, pl.Notation)})
	}
	return req
}
