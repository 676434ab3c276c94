package player

import (
	"context"
	"fmt"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// Analysis is the expert's judgement of one ply played in a view: the
// ply it prefers, the scores of both at the same depth, for the side to
// move, in the game's units (±search.Win-ish for a forced result).
type Analysis struct {
	Best      engine.Ply
	BestScore int
	Played    int
	// Line is the expert's line from Best on (Best first, a few plies).
	Line  []engine.Ply
	Depth int
	Nodes int64
}

// AnalyseTableBits sizes the expert's table in an analysis: some 260,000
// entries, about one per node of the default review budget.
const AnalyseTableBits = 18

// Analyse judges the ply played in view v with the expert's search,
// limited to nodes positions (a budget in nodes, so that the same ply in
// the same view always gets the same judgement, whatever the machine's
// speed or load). Banqi is judged from the view, where a face-down piece
// is a chance node over the pieces still face down, as the expert plays:
// never from the hidden layout. It fails on bad input: a finished game, a
// game no bot plays, a played ply that is not legal in v.
func Analyse(ctx context.Context, v engine.View, played engine.Ply, nodes int64) (Analysis, error) {
	if v.Outcome().Over() || v.ToMove() == engine.NoSeat {
		return Analysis{}, fmt.Errorf("analyse a ply: %w", ErrGameOver)
	}
	if nodes <= 0 {
		return Analysis{}, fmt.Errorf("node budget %d: %w", nodes, ErrBadBudget)
	}
	lim := search.Limits{Nodes: nodes, CheckEvery: 64, TableBits: AnalyseTableBits}
	notation := played.String()
	switch p := v.(type) {
	case quoridor.Position:
		lim.Refinements = expertRefinements
		a := search.Analyse[qState, quoridor.Move](ctx, expertQ, newQState(p), lim, func(m quoridor.Move) bool { return m.String() == notation })
		return toAnalysis(a, notation)
	case corners.Position:
		if p.Variant().Players == 1 {
			return Analysis{}, fmt.Errorf("a training game has no opponent to analyse against: %w", ErrUnknownGame)
		}
		b := p.Board()
		x := newCGame(b, false)
		x.expert, x.root = true, b.Plies()
		// A Corners chain may be written by its ends (C1): the played
		// ply is the legal one with the same squares, or the same ends.
		pm, _ := played.(corners.Move)
		a := search.Analyse[corners.Board, corners.Move](ctx, x, b, lim, func(m corners.Move) bool {
			return m.String() == notation || (m.From() == pm.From() && m.To() == pm.To())
		})
		return toAnalysis(a, notation)
	case banqi.View:
		lim.Refinements = bExpertRefinements
		isPlayed := func(m banqi.Move) bool { return m.String() == notation }
		if !faceDown(&p) {
			return toAnalysis(search.Analyse[bState, banqi.Move](ctx, bDet{bExpertGame()}, bState{v: p}, lim, isPlayed), notation)
		}
		return toAnalysis(search.Analyse[bState, banqi.Move](ctx, bExpertGame(), bState{v: p}, lim, isPlayed), notation)
	}
	return Analysis{}, fmt.Errorf("view of type %T: %w", v, ErrUnknownGame)
}

// ErrNotLegal reports a played ply that is not legal in its view.
var ErrNotLegal = fmt.Errorf("ply is not legal: %w", engine.ErrIllegalMove)

func toAnalysis[M interface {
	comparable
	engine.Ply
}](a search.Analysis[M], notation string) (Analysis, error) {
	if a.Legal == 0 {
		return Analysis{}, ErrNoPly
	}
	if !a.Found {
		return Analysis{}, fmt.Errorf("ply %s: %w", notation, ErrNotLegal)
	}
	out := Analysis{Best: a.Best, BestScore: a.BestScore, Played: a.Played, Depth: a.Depth, Nodes: a.Nodes}
	for _, m := range a.Line {
		out.Line = append(out.Line, m)
	}
	return out, nil
}
