package tui

import (
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/corners"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// cornersBoard returns the view's Corners board, decoding the view's
// engine encoding when the server sent no structured board (GameView
// documents the encoding as holding exactly what the board holds).
func cornersBoard(v *gamev1.GameView) *gamev1.CornersBoard {
	if b := v.GetCorners(); b != nil {
		return b
	}
	p, err := corners.DecodePosition(v.GetEncoding())
	if err != nil {
		return nil
	}
	side := func(s engine.Seat) *gamev1.CornersSide {
		cs := &gamev1.CornersSide{}
		home := map[corners.Square]bool{}
		for _, q := range p.Home(s) {
			cs.Home = append(cs.Home, q.String())
			home[q] = true
		}
		for _, q := range p.Home(s.Other()) {
			cs.Target = append(cs.Target, q.String())
		}
		for _, q := range p.Pieces(s) {
			cs.Pieces = append(cs.Pieces, q.String())
			if home[q] {
				cs.PiecesAtHome++
			}
		}
		return cs
	}
	b := &gamev1.CornersBoard{
		Size: int32(p.Board().Size()), First: side(engine.First), Second: side(engine.Second),
		MoveNumber: int32(p.MoveNumber()), DeadlineMove: int32(p.Deadline()), MoveLimit: int32(p.MoveLimit()),
	}
	if m, ok := p.LastPly(); ok {
		for _, q := range m.Path() {
			b.LastPath = append(b.LastPath, q.String())
		}
	}
	return b
}

// cornersPosition decodes the view's Corners position from the engine's
// encoding, for the engine to judge plies on; false for another game, a
// view without the encoding or a game over.
func cornersPosition(v *gamev1.GameView) (corners.Position, bool) {
	if v.GetGame() != gamev1.Game_GAME_CORNERS {
		return corners.Position{}, false
	}
	p, err := corners.DecodePosition(v.GetEncoding())
	if err != nil || p.Outcome().Over() {
		return corners.Position{}, false
	}
	return p, true
}

// returnsHome reports whether the ply in notation loses the game at once
// for the seat to move under C5.2 (it ends in its own home after the
// leave-home deadline): the engine plays it on p and the mover has lost by
// return home. A ply the engine refuses does not: the server says why.
func returnsHome(p corners.Position, notation string) bool {
	ply, err := p.ParsePly(notation)
	if err != nil {
		return false
	}
	next, err := p.Play(ply)
	if err != nil {
		return false
	}
	o := next.Outcome()
	return o.Result == engine.Win && o.Reason == engine.ReasonReturnHome && o.Winner != p.ToMove()
}
