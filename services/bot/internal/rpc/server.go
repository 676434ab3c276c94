// Package rpc is the bot service's gRPC layer: it turns a SelectPly request
// into the engine's view and a level, asks package player for the ply, and
// maps every error to a status in one place (toStatus).
package rpc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"google.golang.org/grpc/codes"

	"tabuleiro.dev/pkg/engine"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/bot/internal/limit"
	"tabuleiro.dev/services/bot/internal/player"
	"tabuleiro.dev/services/bot/internal/review"
	"tabuleiro.dev/services/bot/internal/search"
)

// MaxBudget is the longest thinking time a request may ask for.
const MaxBudget = 60 * time.Second

// errBadRequest reports a request field out of range.
var errBadRequest = errors.New("bad request")

// toStatus maps the bot's errors: everything a caller can get wrong is
// InvalidArgument with the reason; anything else is Internal.
var toStatus = rpcerr.Must(rpcerr.Mapper{
	{Err: errBadView, Code: codes.InvalidArgument, Reason: reason.BadSetup},
	{Err: errBadRequest, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: engine.ErrUnknownVariant, Code: codes.InvalidArgument, Reason: reason.UnknownVariant},
	{Err: player.ErrUnknownLevel, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: player.ErrBadBudget, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: player.ErrGameOver, Code: codes.InvalidArgument, Reason: reason.GameOver},
	{Err: player.ErrUnknownGame, Code: codes.InvalidArgument, Reason: reason.UnknownVariant},
	{Err: player.ErrNoPly, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: limit.ErrBusy, Code: codes.ResourceExhausted, Reason: reason.BotBusy},
	{Err: review.ErrBadGame, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: engine.ErrIllegalMove, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
}).Status

var levelOf = map[gamev1.BotLevel]player.Level{
	gamev1.BotLevel_BOT_LEVEL_EASY:   player.Easy,
	gamev1.BotLevel_BOT_LEVEL_MEDIUM: player.Medium,
	gamev1.BotLevel_BOT_LEVEL_HARD:   player.Hard,
	gamev1.BotLevel_BOT_LEVEL_EXPERT: player.Expert,
}

// Default limits of a bot replica (BOT_MAX_SEARCHES, BOT_MAX_QUEUE): 8
// searches of at most search.MaxTableBytes of table each (64 MiB) fit the
// 256 MiB container with room for the heap's growth under GOMEMLIMIT, and
// 64 waiting requests cover 4× a replica's expected load (8 games asking at
// once) at the match service's 500 ms budget and 3 s deadline.
const (
	DefaultMaxSearches = 8
	DefaultMaxQueue    = 64
)

// Server implements tabuleiro.bot.v1.BotService. It holds no game state:
// only the limiter of concurrent searches.
type Server struct {
	botv1.UnimplementedBotServiceServer
	lim *limit.Limiter
}

var _ botv1.BotServiceServer = (*Server)(nil)

// NewServer returns the BotService handler with the default limits.
func NewServer() *Server {
	return NewLimitedServer(limit.New(DefaultMaxSearches, DefaultMaxQueue))
}

// NewLimitedServer returns the BotService handler whose searches take a
// slot of lim: a request that finds none within its deadline gets
// RESOURCE_EXHAUSTED.
func NewLimitedServer(lim *limit.Limiter) *Server {
	observeLimiter(lim)
	return &Server{lim: lim}
}

// SelectPly chooses a ply for the view's side to move.
func (s *Server) SelectPly(ctx context.Context, req *botv1.SelectPlyRequest) (*botv1.SelectPlyResponse, error) {
	resp, err := s.selectPly(ctx, req)
	return resp, toStatus(err)
}

func (s *Server) selectPly(ctx context.Context, req *botv1.SelectPlyRequest) (*botv1.SelectPlyResponse, error) {
	lvl, ok := levelOf[req.GetLevel()]
	if !ok {
		return nil, fmt.Errorf("level %s: %w", req.GetLevel(), player.ErrUnknownLevel)
	}
	budget := time.Duration(req.GetBudgetMs()) * time.Millisecond
	switch {
	case req.GetBudgetMs() == 0:
		budget = lvl.DefaultBudget()
	case req.GetBudgetMs() < 0 || budget > MaxBudget:
		return nil, fmt.Errorf("%w: budget_ms %d is outside 1–%d", errBadRequest, req.GetBudgetMs(), MaxBudget.Milliseconds())
	}
	v, err := toView(req.GetView())
	if err != nil {
		return nil, err
	}
	seed := req.GetSeed()
	if seed == 0 {
		seed = rand.Uint64()
	}
	release, err := s.lim.Acquire(ctx, req.GetPlayerId(), budget)
	if err != nil {
		if errors.Is(err, limit.ErrBusy) {
			busy.Add(ctx, 1)
		}
		return nil, err
	}
	defer release()
	start := time.Now()
	threads := s.lim.Threads(runtime.GOMAXPROCS(0))
	c, err := player.SelectThreads(ctx, v, lvl, budget, threads, rand.New(rand.NewPCG(seed, uint64(v.Plies()))))
	if err != nil {
		return nil, err
	}
	observeThink(ctx, lvl.String(), start)
	return &botv1.SelectPlyResponse{
		Notation:   c.Ply.String(),
		PlyNumber:  int32(v.Plies() + 1),
		Evaluation: evaluation(c.Eval),
		Nodes:      c.Nodes,
		Depth:      int32(c.Depth),
		ElapsedMs:  c.Elapsed.Milliseconds(),
	}, nil
}

// evaluation maps a search score to the API's: ±1000000 for a forced win
// or loss, other scores kept inside it.
func evaluation(score int) int32 {
	const decided = 1000000
	switch {
	case score >= search.WinBound:
		return decided
	case score <= -search.WinBound:
		return -decided
	}
	return int32(max(-decided+1, min(decided-1, score)))
}
