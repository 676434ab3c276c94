package rpc

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/services/bot/internal/review"
)

// ReviewGame reviews a finished game, streaming progress after each ply
// and the review last.
func (s *Server) ReviewGame(req *botv1.ReviewGameRequest, stream grpc.ServerStreamingServer[botv1.ReviewGameResponse]) error {
	return toStatus(s.reviewGame(stream.Context(), req, stream.Send))
}

func (s *Server) reviewGame(ctx context.Context, req *botv1.ReviewGameRequest, send func(*botv1.ReviewGameResponse) error) error {
	g, err := ReviewInput(req)
	if err != nil {
		return err
	}
	if _, err := review.Views(g); err != nil {
		return err // bad input is refused before any work
	}
	var sendErr error
	r, err := review.RunPaced(ctx, g, req.GetNodes(), s.lim.AcquireBackground, func(done, total int, _ review.PlyReview) {
		if sendErr == nil {
			sendErr = send(&botv1.ReviewGameResponse{Event: &botv1.ReviewGameResponse_Progress{
				Progress: &gamev1.ReviewProgress{Done: int32(done), Total: int32(total)}}})
		}
	})
	if err != nil {
		return err
	}
	if sendErr != nil {
		return sendErr
	}
	return send(&botv1.ReviewGameResponse{Event: &botv1.ReviewGameResponse_Review{Review: ToProto(r)}})
}

// errBadGame is review.ErrBadGame for the status mapper.
var errBadGame = review.ErrBadGame

// ReviewInput turns a request into the game to review. Errors wrap
// review.ErrBadGame.
func ReviewInput(req *botv1.ReviewGameRequest) (review.Game, error) {
	g, ok := gameOf[req.GetGame()]
	if !ok {
		return review.Game{}, fmt.Errorf("%w: game %s is not a game", errBadGame, req.GetGame())
	}
	if req.GetNodes() < 0 || req.GetNodes() > review.MaxNodes {
		return review.Game{}, fmt.Errorf("%w: nodes %d is outside 0–%d", errBadGame, req.GetNodes(), review.MaxNodes)
	}
	out := review.Game{Game: g, Variant: req.GetVariant()}
	for _, p := range req.GetPlies() {
		out.Plies = append(out.Plies, review.Ply{Notation: p.GetNotation(), Revealed: pieceOf(p.GetRevealed())})
	}
	return out, nil
}

// pieceOf is game.v1's BanqiPiece as the engine's: red K A B R N C P are
// 1–7, black 8–14; NoPiece for the rest.
func pieceOf(p gamev1.BanqiPiece) banqi.Piece {
	const letters = "KABRNCPkabrncp"
	if p < 1 || int(p) > len(letters) {
		return banqi.NoPiece
	}
	pc, _ := banqi.PieceFromLetter(letters[p-1])
	return pc
}

var markOf = map[review.Mark]gamev1.ReviewMark{
	review.Good:       gamev1.ReviewMark_REVIEW_MARK_GOOD,
	review.Inaccuracy: gamev1.ReviewMark_REVIEW_MARK_INACCURACY,
	review.Mistake:    gamev1.ReviewMark_REVIEW_MARK_MISTAKE,
	review.Blunder:    gamev1.ReviewMark_REVIEW_MARK_BLUNDER,
}

var gameTo = map[engine.Game]gamev1.Game{
	engine.Quoridor: gamev1.Game_GAME_QUORIDOR,
	engine.Corners:  gamev1.Game_GAME_CORNERS,
	engine.Banqi:    gamev1.Game_GAME_BANQI,
}

// ToProto is a review as the API's.
func ToProto(r review.Review) *gamev1.GameReview {
	out := &gamev1.GameReview{Game: gameTo[r.Game], Variant: r.Variant, EngineVersion: review.EngineVersion,
		Nodes: r.Nodes, CriticalPly: int32(r.Critical)}
	for _, p := range r.Plies {
		out.Plies = append(out.Plies, &gamev1.PlyReview{Number: int32(p.Number), Seat: gamev1.Seat(p.Seat), Played: p.Played,
			Best: p.Best, Line: p.Line, BestScore: evaluation(p.BestScore), PlayedScore: evaluation(p.PlayedScore),
			Before: p.Before, After: p.After, Drop: p.Drop, Mark: markOf[p.Mark], Depth: int32(p.Depth), Nodes: p.Nodes})
	}
	for i, sm := range r.Seats {
		out.Seats = append(out.Seats, &gamev1.SeatReview{Seat: gamev1.Seat(i + 1), Plies: int32(sm.Plies), Accuracy: sm.Accuracy,
			Inaccuracies: int32(sm.Marks[review.Inaccuracy]), Mistakes: int32(sm.Marks[review.Mistake]), Blunders: int32(sm.Marks[review.Blunder])})
	}
	return out
}
