// Package review is the game review: it replays a finished game's plies
// and has the expert judge each one (package player's Analyse) at a fixed
// budget in nodes, so that the same game always gets the same review. Each
// ply's score becomes a win chance for its mover; the drop in win chance
// between the expert's ply and the played one marks the ply an
// inaccuracy, a mistake or a blunder on one scale for every game.
//
// A Banqi ply is judged from the view its mover had: the pieces still face
// down are the remaining distribution (chance nodes, as the expert plays),
// never the hidden layout. The review is built from the plies and the
// pieces each reveal showed, so it cannot depend on the layout's other
// squares.
package review

import (
	"context"
	"errors"
	"fmt"
	"math"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/services/bot/internal/player"
	"tabuleiro.dev/services/bot/internal/search"
)

// DefaultNodes is the expert's budget for each ply reviewed, in positions
// searched: about a fifth of a second of one core (docs/bots.md, "Game
// review"). MaxNodes is the most a caller may ask for.
const (
	DefaultNodes = 150_000
	MaxNodes     = 5_000_000
)

// EngineVersion names the review's engine and scale: a stored review is
// kept for a game and this version (with the node budget), and changes
// whenever the expert's search or evaluation, the win-chance scales or
// the thresholds change.
const EngineVersion = "expert-2026-12-06"

// MaxPlies is the longest game reviewed.
const MaxPlies = 1000

// Mark is the judgement of one ply.
type Mark int8

// The marks, from none to the worst.
const (
	Good Mark = iota
	Inaccuracy
	Mistake
	Blunder
)

var markNames = [...]string{"good", "inaccuracy", "mistake", "blunder"}

func (m Mark) String() string {
	if m >= Good && m <= Blunder {
		return markNames[m]
	}
	return fmt.Sprintf("mark(%d)", m)
}

// The thresholds of the marks, in points of win chance (0–100) lost by a
// ply against the expert's: the same for every game. They are lichess's
// (0.1, 0.2 and 0.3 on its −1…+1 scale of winning chances).
const (
	InaccuracyDrop = 5.0
	MistakeDrop    = 10.0
	BlunderDrop    = 15.0
)

// markOf marks a drop in win chance.
func markOf(drop float64) Mark {
	switch {
	case drop >= BlunderDrop:
		return Blunder
	case drop >= MistakeDrop:
		return Mistake
	case drop >= InaccuracyDrop:
		return Inaccuracy
	}
	return Good
}

// Scale is the score, in a game's units, at which the side to move wins
// about 73% of the time (1/(1+e⁻¹)): WinChance is logistic in the score
// divided by it. Quoridor's unit is about 100 a step of path or a wall in
// hand, so a step of advantage (a tempo in the race) is 66%
// curve; Corners' evaluation counts about 30 a step of the race
// (docs/bots.md), so a step is about the same share; Banqi's is material,
// 70 (a soldier) to 600 (the general) a piece, so a horse is 59%.
var Scale = map[engine.Game]float64{
	engine.Quoridor: 150,
	engine.Corners:  80,
	engine.Banqi:    270,
}

// WinChance is the mover's chance to win, 0–100, of a score in game g's
// units for the side to move: 100 and 0 for a forced win and loss.
func WinChance(g engine.Game, score int) float64 {
	switch {
	case score >= search.WinBound:
		return 100
	case score <= -search.WinBound:
		return 0
	}
	k := Scale[g]
	if k == 0 {
		k = 270
	}
	return 100 / (1 + math.Exp(-float64(score)/k))
}

// Accuracy is a ply's accuracy, 0–100, from its drop in win chance: the
// curve lichess fits to chess, 100 for no drop, about 50 for 15 points.
func Accuracy(drop float64) float64 {
	a := 103.1668*math.Exp(-0.04354*drop) - 3.1669
	return max(0, min(100, a))
}

// Ply is one ply of the game to review: its notation and, for a Banqi
// reveal, the piece it showed (the one fact about the layout a review
// needs, known to both players once played).
type Ply struct {
	Notation string
	Revealed banqi.Piece
}

// Game is a finished game to review.
type Game struct {
	Game    engine.Game
	Variant string
	Plies   []Ply
}

// PlyReview is the review of one ply.
type PlyReview struct {
	Number int // from 1
	Seat   engine.Seat
	Played string
	// Best is the expert's ply, Line its line from Best on (Best first).
	Best string
	Line []string
	// BestScore and PlayedScore are the scores of the two plies for the
	// mover, in the game's units (see search.Win for forced results).
	BestScore, PlayedScore int
	// Before and After are the first seat's win chance, 0–100, before the
	// ply (with the expert's ply) and after the played one.
	Before, After float64
	// Drop is the mover's loss of win chance against the expert's ply (0
	// when it played it, or one as good).
	Drop float64
	Mark Mark
	// Depth is the depth the two plies were compared at; Nodes the
	// positions searched for this ply.
	Depth int
	Nodes int64
}

// Summary is one seat's part of the review.
type Summary struct {
	Plies    int
	Accuracy float64 // mean of the plies' Accuracy; 100 with no ply
	Marks    [Blunder + 1]int
}

// Review is a game's review.
type Review struct {
	Game    engine.Game
	Variant string
	Nodes   int64
	Plies   []PlyReview
	// Seats are the first's and the second's summaries (Seat.Index).
	Seats [2]Summary
	// Critical is the number of the ply that lost the most win chance
	// (the largest swing), 0 when no ply lost any.
	Critical int
	// Outcome is how the game stood after its last ply, as the board
	// decides it (a resignation or a flag is not on the board).
	Outcome engine.Outcome
}

// ErrBadGame reports a game that cannot be replayed: an unknown variant,
// an illegal ply, a reveal without its piece, too many plies.
var ErrBadGame = errors.New("game cannot be replayed")

// Views replays g and returns the view each ply's mover had before it
// (Banqi: the public view), then the final one.
func Views(g Game) ([]engine.View, error) {
	if len(g.Plies) > MaxPlies {
		return nil, fmt.Errorf("%w: %d plies, at most %d", ErrBadGame, len(g.Plies), MaxPlies)
	}
	if _, err := games.Lookup(g.Game, g.Variant); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadGame, err)
	}
	views := make([]engine.View, 0, len(g.Plies)+1)
	if g.Game == engine.Banqi {
		// Any layout's start is every piece face down: its public view is
		// the start of every Banqi game.
		v := banqi.LayoutFromSeed([32]byte{}).Position().PublicView()
		for i, p := range g.Plies {
			views = append(views, v)
			m, err := banqi.ParseMove(p.Notation)
			if err != nil {
				return nil, fmt.Errorf("%w: ply %d %q: %w", ErrBadGame, i+1, p.Notation, err)
			}
			if m.Kind() == banqi.KindReveal {
				if !p.Revealed.Valid() {
					return nil, fmt.Errorf("%w: ply %d %q is a reveal without the piece it showed", ErrBadGame, i+1, p.Notation)
				}
				v, err = v.Reveal(m.From(), p.Revealed)
			} else {
				v, err = v.PlayMove(m)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: ply %d %q: %w", ErrBadGame, i+1, p.Notation, err)
			}
		}
		return append(views, v), nil
	}
	pos, err := games.New(g.Game, g.Variant, "")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadGame, err)
	}
	for i, p := range g.Plies {
		views = append(views, pos)
		ply, err := pos.ParsePly(p.Notation)
		if err == nil {
			pos, err = pos.Play(ply)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: ply %d %q: %w", ErrBadGame, i+1, p.Notation, err)
		}
	}
	return append(views, pos), nil
}

// Run reviews g with the expert at nodes positions a ply (0: DefaultNodes),
// calling progress (if not nil) after each ply with the plies done and
// the total. It stops with ctx's error when ctx ends.
func Run(ctx context.Context, g Game, nodes int64, progress func(done, total int, p PlyReview)) (Review, error) {
	return RunPaced(ctx, g, nodes, nil, progress)
}

// RunPaced is Run taking a slot of acquire (if not nil) for each ply's
// search and releasing it after: the bot service's limiter, so that a
// review yields to live plies between two of its own.
func RunPaced(ctx context.Context, g Game, nodes int64, acquire func(context.Context) (func(), error), progress func(done, total int, p PlyReview)) (Review, error) {
	if nodes == 0 {
		nodes = DefaultNodes
	}
	if nodes < 0 || nodes > MaxNodes {
		return Review{}, fmt.Errorf("%w: node budget %d is outside 1–%d", ErrBadGame, nodes, MaxNodes)
	}
	views, err := Views(g)
	if err != nil {
		return Review{}, err
	}
	r := Review{Game: g.Game, Variant: g.Variant, Nodes: nodes, Outcome: views[len(views)-1].Outcome()}
	var worst float64
	for i, v := range views[:len(views)-1] {
		release := func() {}
		if acquire != nil {
			if release, err = acquire(ctx); err != nil {
				return Review{}, err
			}
		}
		p, err := Judge(ctx, g.Game, v, g.Plies[i].Notation, nodes)
		release()
		if err != nil {
			return Review{}, fmt.Errorf("ply %d: %w", i+1, err)
		}
		p.Number = i + 1
		seat := p.Seat
		if p.Drop > worst {
			worst, r.Critical = p.Drop, p.Number
		}
		if seat == engine.First || seat == engine.Second {
			s := &r.Seats[seat.Index()]
			s.Plies++
			s.Accuracy += Accuracy(p.Drop)
			s.Marks[p.Mark]++
		}
		r.Plies = append(r.Plies, p)
		if progress != nil {
			progress(i+1, len(g.Plies), p)
		}
	}
	for i := range r.Seats {
		if r.Seats[i].Plies == 0 {
			r.Seats[i].Accuracy = 100
		} else {
			r.Seats[i].Accuracy /= float64(r.Seats[i].Plies)
		}
	}
	return r, nil
}

// Judge reviews one ply, played (RULES.md notation) in view v of game g,
// with the expert at nodes positions. PlyReview.Number is left 0.
func Judge(ctx context.Context, g engine.Game, v engine.View, played string, nodes int64) (PlyReview, error) {
	seat := v.ToMove()
	ply, err := v.ParsePly(played)
	if err != nil {
		return PlyReview{}, fmt.Errorf("%w: %w", ErrBadGame, err)
	}
	a, err := player.Analyse(ctx, v, ply, nodes)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return PlyReview{}, err
	}
	p := PlyReview{Seat: seat, Played: played, Best: a.Best.String(),
		BestScore: a.BestScore, PlayedScore: a.Played, Depth: a.Depth, Nodes: a.Nodes}
	if a.Best.String() == ply.String() {
		p.Best = p.Played // the record's own spelling
	}
	for _, m := range a.Line {
		p.Line = append(p.Line, m.String())
	}
	best, got := WinChance(g, a.BestScore), WinChance(g, a.Played)
	p.Drop = max(0, best-got)
	p.Mark = markOf(p.Drop)
	p.Before, p.After = best, got
	if seat == engine.Second {
		p.Before, p.After = 100-best, 100-got
	}
	return p, nil
}
