package rpc

import (
	"errors"
	"fmt"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// errBadView reports a view that is missing, malformed or inconsistent.
var errBadView = errors.New("bad view")

func badView(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadView, fmt.Sprintf(format, args...))
}

var gameOf = map[gamev1.Game]engine.Game{
	gamev1.Game_GAME_QUORIDOR: engine.Quoridor,
	gamev1.Game_GAME_CORNERS:  engine.Corners,
	gamev1.Game_GAME_BANQI:    engine.Banqi,
}

var seatOf = map[gamev1.Seat]engine.Seat{
	gamev1.Seat_SEAT_UNSPECIFIED: engine.NoSeat,
	gamev1.Seat_SEAT_FIRST:       engine.First,
	gamev1.Seat_SEAT_SECOND:      engine.Second,
}

// toView turns the API's view into the engine's: it decodes the engine
// encoding that the view carries with the game's own decoder (which checks
// sizes and counts), then checks that the structured fields say the same.
// Errors wrap errBadView or engine.ErrUnknownVariant.
func toView(pv *gamev1.GameView) (engine.View, error) {
	if pv == nil {
		return nil, badView("view is required")
	}
	g, ok := gameOf[pv.GetGame()]
	if !ok {
		return nil, badView("view.game %s is not a game", pv.GetGame())
	}
	if _, err := games.Lookup(g, pv.GetVariant()); err != nil || pv.GetVariant() == "" {
		return nil, fmt.Errorf("view.variant %q of %s: %w", pv.GetVariant(), g, engine.ErrUnknownVariant)
	}
	if pv.GetEncoding() == "" {
		return nil, badView("view.encoding is required")
	}
	v, err := games.DecodeView(g, pv.GetEncoding())
	if err != nil {
		return nil, badView("view.encoding: %v", err)
	}
	if id := v.Variant().ID; id != pv.GetVariant() {
		return nil, badView("view.encoding is of variant %q, view.variant says %q", id, pv.GetVariant())
	}
	toMove, ok := seatOf[pv.GetToMove()]
	if !ok || toMove != v.ToMove() {
		return nil, badView("view.to_move is %s, the encoding has %s to move", pv.GetToMove(), v.ToMove())
	}
	if int(pv.GetPlyCount()) != v.Plies() {
		return nil, badView("view.ply_count is %d, the encoding has %d plies", pv.GetPlyCount(), v.Plies())
	}
	if err := checkBoard(g, pv, v); err != nil {
		return nil, err
	}
	return v, nil
}

// checkBoard checks the structured board, when given, against the decoded
// view: it must be the game's, and its counts must match.
func checkBoard(g engine.Game, pv *gamev1.GameView, v engine.View) error {
	switch b := pv.GetBoard().(type) {
	case nil:
		return nil
	case *gamev1.GameView_Quoridor:
		if g != engine.Quoridor {
			return badView("view.board is a Quoridor board, view.game is %s", g)
		}
		if b.Quoridor.GetFirst() == nil || b.Quoridor.GetSecond() == nil {
			return badView("view.quoridor needs both sides")
		}
		for _, w := range b.Quoridor.GetWalls() {
			if w.GetOrientation() == gamev1.WallOrientation_WALL_ORIENTATION_UNSPECIFIED {
				return badView("view.quoridor wall %s has no orientation", w.GetAnchor())
			}
		}
		if n := len(b.Quoridor.GetWalls()) + int(b.Quoridor.GetFirst().GetWallsLeft()+b.Quoridor.GetSecond().GetWallsLeft()); n != 20 {
			return badView("view.quoridor has %d walls placed or left, want 20 (Q1)", n)
		}
	case *gamev1.GameView_Corners:
		if g != engine.Corners {
			return badView("view.board is a Corners board, view.game is %s", g)
		}
		if s := b.Corners.GetSize(); s != 8 && s != 16 {
			return badView("view.corners.size is %d, want 8 or 16", s)
		}
	case *gamev1.GameView_Banqi:
		if g != engine.Banqi {
			return badView("view.board is a Banqi board, view.game is %s", g)
		}
		cells := b.Banqi.GetCells()
		if len(cells) != banqi.NumSquares {
			return badView("view.banqi has %d cells, want %d (B1)", len(cells), banqi.NumSquares)
		}
		bv, ok := v.(banqi.View)
		if !ok {
			return badView("view.encoding is not a Banqi view")
		}
		for i, c := range cells {
			faceDown := c.GetFaceDown() != nil
			if faceDown != (bv.Cell(banqi.Square(i)) == banqi.FaceDown) {
				return badView("view.banqi cell %s disagrees with the encoding", banqi.Square(i))
			}
		}
	}
	return nil
}
