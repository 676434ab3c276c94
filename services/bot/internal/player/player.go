// Package player chooses a ply for a seat's view at one of the bot levels
// (easy, medium, hard, expert) in every game, over package search. It sees
// only what the view shows: for Banqi, never a face-down identity (B6).
package player

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// Level is a bot's strength. The zero value is unset.
type Level int8

// The levels, weakest first.
const (
	Easy Level = iota + 1
	Medium
	Hard
	Expert
	// Expert1 is the expert as it played before issue 20 (its search and
	// evaluation frozen), kept to measure newer experts against. Players
	// never meet it: the bot service offers only Levels.
	Expert1
	// Racer is a sparring opponent for the Quoridor expert (issue 49): the
	// expert's search valuing a wall in hand at a third of a step, it
	// spends its walls early where they lengthen the opponent's path most
	// against its own, and races (quoridor_racer.go). Players never meet
	// it, and it plays only Quoridor.
	Racer
)

var levelNames = [...]string{Easy: "easy", Medium: "medium", Hard: "hard", Expert: "expert", Expert1: "expert-1", Racer: "racer"}

// Levels lists the levels players meet, weakest first.
func Levels() []Level { return []Level{Easy, Medium, Hard, Expert} }

// HarnessLevels lists every level the tournament harness plays: Levels and
// the frozen past experts.
func HarnessLevels() []Level { return []Level{Easy, Medium, Hard, Expert, Expert1} }

// String returns "easy", "medium", "hard", "expert" or a frozen level's
// name ("expert-1") or the sparring level's ("racer").
func (l Level) String() string {
	if l >= Easy && l <= Racer {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", l)
}

// ParseLevel is the inverse of Level.String. Errors wrap ErrUnknownLevel.
func ParseLevel(s string) (Level, error) {
	for _, l := range Levels() {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("level %q (want easy, medium, hard or expert): %w", s, ErrUnknownLevel)
}

// ParseHarnessLevel is ParseLevel accepting the frozen levels and the
// Quoridor sparring level (racer) too.
func ParseHarnessLevel(s string) (Level, error) {
	for _, l := range append(HarnessLevels(), Racer) {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("level %q (want easy, medium, hard, expert, expert-1 or racer): %w", s, ErrUnknownLevel)
}

// DefaultBudget is the time a level thinks when the caller does not say.
func (l Level) DefaultBudget() time.Duration {
	switch l {
	case Hard:
		return 500 * time.Millisecond
	case Expert, Expert1:
		return 2 * time.Second
	}
	return 100 * time.Millisecond
}

// Errors of Select; they describe bad input.
var (
	ErrUnknownLevel = errors.New("unknown level")
	ErrBadBudget    = errors.New("budget must be positive")
	ErrGameOver     = errors.New("game is over")
	ErrUnknownGame  = errors.New("no bot plays this game")
)

// Choice is the ply a bot chose, with what its search found.
type Choice struct {
	Ply engine.Ply
	// Eval is the search's score of Ply for the side to move, in the
	// game's units (about 100 per Quoridor step); ±search.Win-ish for a
	// forced result.
	Eval int
	// Nodes is the number of positions searched; Depth the deepest
	// completed search in plies (0 for easy).
	Nodes int64
	Depth int
	// Elapsed is the time spent thinking.
	Elapsed time.Duration
}

// Select returns the ply that a bot of level lvl plays in view v, thinking
// for at most budget or until ctx's deadline, whichever comes first; when
// time runs out it returns the best ply found so far. rng draws the easy
// level's choice. It fails only on bad input: an unknown level, a budget ≤
// 0, a finished game or a game no bot plays.
func Select(ctx context.Context, v engine.View, lvl Level, budget time.Duration, rng *rand.Rand) (Choice, error) {
	return SelectThreads(ctx, v, lvl, budget, 1, rng)
}

// SelectThreads is Select with the expert searching on up to threads
// goroutines (Lazy SMP, see search.Limits.Threads) when its budget is at
// least MinThreadedBudget: the caller gives it the cores it has idle. The
// other levels and the frozen experts search on one.
func SelectThreads(ctx context.Context, v engine.View, lvl Level, budget time.Duration, threads int, rng *rand.Rand) (Choice, error) {
	if lvl < Easy || lvl > Racer {
		return Choice{}, fmt.Errorf("level %d: %w", lvl, ErrUnknownLevel)
	}
	if budget <= 0 {
		return Choice{}, fmt.Errorf("budget %s: %w", budget, ErrBadBudget)
	}
	if v.Outcome().Over() || v.ToMove() == engine.NoSeat {
		return Choice{}, fmt.Errorf("select a ply: %w", ErrGameOver)
	}
	start := time.Now()
	var (
		c   Choice
		err error
	)
	if _, ok := v.(quoridor.Position); !ok && lvl == Racer {
		return Choice{}, fmt.Errorf("level %s plays only Quoridor: %w", lvl, ErrUnknownGame)
	}
	switch v := v.(type) {
	case quoridor.Position:
		c, err = selectQuoridor(ctx, v, lvl, budget, threads, rng)
	case corners.Position:
		c, err = selectCorners(ctx, v, lvl, budget, threads, rng)
	case banqi.View:
		c, err = selectBanqi(ctx, v, lvl, budget, threads, rng)
	default:
		return Choice{}, fmt.Errorf("view of type %T: %w", v, ErrUnknownGame)
	}
	c.Elapsed = time.Since(start)
	return c, err
}

// ErrNoPly reports a view whose game goes on but whose side to move has no
// legal ply: the rules never allow that, so the view is inconsistent.
var ErrNoPly = errors.New("no legal ply in an ongoing game")

// levelGames are one game's adapters for the levels: simple is easy's
// quick heuristic, real the evaluation of the other levels (hard and expert
// may use their own).
type levelGames[S any, M comparable, E, G, H search.Game[S, M]] struct {
	simple E
	medium G
	deep   H // hard and expert
	// expert, if set, turns on the expert's search refinements (not the
	// frozen experts').
	expert search.Refinements
	// tableBits, if set, sizes the expert's transposition table (else 18
	// bits): a table is allocated for every ply, which at small budgets on
	// a busy machine can cost more than the search (a Corners move holds its
	// path, so its table of 8 MB took a 100 ms expert's whole budget).
	tableBits int
}

// MinThreadedBudget is the least budget at which the expert searches on
// more than one goroutine. Measured at 100 and 300 ms (README.md, "Bot
// strength"); shorter searches keep to one, where a helper's start and a
// shared table's locks weigh more (not measured).
const MinThreadedBudget = 50 * time.Millisecond

// nodeLimits, when set (by measurements only: tests and tools), caps the
// positions each level searches for a ply, on top of its budget, so that a
// measurement does not depend on the machine's speed or load.
var nodeLimits [Racer + 1]int64

// choose runs the search of level lvl over st.
func choose[S any, M comparable, E, G, H search.Game[S, M]](ctx context.Context, gs levelGames[S, M, E, G, H], st S, lvl Level, budget time.Duration, threads int, rng *rand.Rand) (M, Choice, error) {
	lim := search.Limits{Budget: budget, Shuffle: rng, CheckEvery: 64, Nodes: nodeLimits[lvl]}
	var r search.Result[M]
	switch lvl {
	case Easy:
		ranked := search.Rank[S, M](ctx, gs.simple, st)
		if len(ranked) == 0 {
			var none M
			return none, Choice{}, ErrNoPly
		}
		pick := ranked[rng.IntN(min(6, len(ranked)))]
		return pick.Move, Choice{Eval: pick.Score, Nodes: int64(len(ranked)), Depth: 1}, nil
	case Medium:
		r = search.Greedy[S, M](ctx, gs.medium, st, lim)
	case Hard:
		lim.Depth = 3
		r = search.AlphaBeta[S, M](ctx, gs.deep, st, lim)
	case Expert:
		lim.TableBits = 18
		if gs.tableBits > 0 {
			lim.TableBits = gs.tableBits
		}
		lim.Refinements = gs.expert
		if budget >= MinThreadedBudget {
			lim.Threads = threads
		}
		r = search.Iterative[S, M](ctx, gs.deep, st, lim)
	default: // the frozen experts
		lim.TableBits = 18
		r = search.Iterative[S, M](ctx, gs.deep, st, lim)
	}
	if r.Legal == 0 {
		return r.Move, Choice{}, ErrNoPly
	}
	return r.Move, Choice{Eval: r.Score, Nodes: r.Nodes, Depth: r.Depth}, nil
}

// tableBits sizes an expert's transposition table for a budget: about an
// entry for every node it can search (some 300,000 a second), at most
// 1<<maxBits entries and at least 1<<12.
func tableBits(budget time.Duration, maxBits int) int {
	nodes := budget.Seconds() * 300_000
	bits := 12
	for bits < maxBits && float64(int(1)<<bits) < nodes {
		bits++
	}
	return bits
}
