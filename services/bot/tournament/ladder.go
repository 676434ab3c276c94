package tournament

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/services/bot/internal/player"
)

// LadderConfig describes a round robin: every pair of Levels plays a match
// of Games games (sides alternating, as in Run).
type LadderConfig struct {
	Game    engine.Game
	Variant string
	// Levels are the level names; empty means every level the harness
	// plays (player.HarnessLevels: the four levels and the frozen experts).
	// The first is the anchor, rated 0.
	Levels   []string
	Games    int // per pair
	Budget   time.Duration
	Parallel int
	Threads  int // as Config.Threads
	Seed     uint64
	MaxPlies int
	Opening  int
	// Progress, if not nil, is called after every match with its result.
	Progress func(match Result)
}

// Rating is one level's place on the ladder.
type Rating struct {
	Level string
	// Elo is the Bradley–Terry rating on the Elo scale (400 points for
	// odds of ten to one), relative to the anchor; Low and High bound its
	// 95% interval.
	Elo, Low, High float64
	Games          int
	Score          float64 // points per game against the field
}

// LadderResult is the round robin's outcome.
type LadderResult struct {
	Config  LadderConfig
	Variant string
	Matches []Result // one per pair, A the level listed first
	Ratings []Rating // strongest first
	Elapsed time.Duration
}

// Ladder plays the round robin and rates the levels. On a context
// cancellation it rates the games finished so far and returns the error.
func Ladder(ctx context.Context, cfg LadderConfig) (LadderResult, error) {
	if len(cfg.Levels) == 0 {
		for _, l := range player.HarnessLevels() {
			cfg.Levels = append(cfg.Levels, l.String())
		}
	}
	for _, name := range cfg.Levels {
		if _, err := player.ParseHarnessLevel(name); err != nil {
			return LadderResult{}, fmt.Errorf("%w: --levels: %w", ErrBadConfig, err)
		}
	}
	if len(cfg.Levels) < 2 || len(slices.Compact(slices.Sorted(slices.Values(cfg.Levels)))) != len(cfg.Levels) {
		return LadderResult{}, fmt.Errorf("%w: want two or more different levels, got %q", ErrBadConfig, cfg.Levels)
	}
	if cfg.Games <= 0 {
		return LadderResult{}, fmt.Errorf("%w: %d games a pair", ErrBadConfig, cfg.Games)
	}
	v, err := games.Lookup(cfg.Game, cfg.Variant)
	if err != nil {
		return LadderResult{}, err
	}
	start := time.Now()
	res := LadderResult{Config: cfg, Variant: v.ID}
	n := len(cfg.Levels)
	for i := range n {
		for j := i + 1; j < n; j++ {
			r, err := Run(ctx, Config{
				Game: cfg.Game, Variant: v.ID, A: cfg.Levels[i], B: cfg.Levels[j],
				Games: cfg.Games, Budget: cfg.Budget, Parallel: cfg.Parallel, Threads: cfg.Threads,
				Seed: cfg.Seed + uint64(i*n+j), MaxPlies: cfg.MaxPlies, Opening: cfg.Opening,
			})
			if r.Games() > 0 {
				res.Matches = append(res.Matches, r)
				if cfg.Progress != nil {
					cfg.Progress(r)
				}
			}
			if err != nil {
				res.Ratings = rate(cfg.Levels, res.Matches)
				res.Elapsed = time.Since(start)
				return res, err
			}
		}
	}
	res.Ratings = rate(cfg.Levels, res.Matches)
	res.Elapsed = time.Since(start)
	return res, nil
}

// eloScale turns a natural-log strength into Elo points.
const eloScale = 400 / math.Ln10

// rate fits the Bradley–Terry model to the matches by Newton's method:
// P(i beats j) = 1/(1+exp(r_j-r_i)), a draw counting half a win to each
// side, levels[0] fixed at 0. One virtual draw between every pair that met
// keeps the ratings finite when a level won every game. The intervals are
// ±1.96 standard errors from the inverse of the information matrix.
func rate(levels []string, matches []Result) []Rating {
	n := len(levels)
	at := map[string]int{}
	for i, l := range levels {
		at[l] = i
	}
	w := make([][]float64, n) // w[i][j]: i's points against j
	g := make([][]float64, n) // games between i and j
	for i := range n {
		w[i], g[i] = make([]float64, n), make([]float64, n)
	}
	ratings := make([]Rating, n)
	for i, l := range levels {
		ratings[i].Level = l
	}
	for _, m := range matches {
		a, b := at[m.Config.A], at[m.Config.B]
		if m.Games() == 0 {
			continue
		}
		pa := float64(m.Wins) + float64(m.Draws)/2
		k := float64(m.Games())
		w[a][b] += pa + 0.5
		w[b][a] += k - pa + 0.5
		g[a][b] += k + 1
		g[b][a] += k + 1
		ratings[a].Games += m.Games()
		ratings[b].Games += m.Games()
		ratings[a].Score += pa
		ratings[b].Score += k - pa
	}
	r := make([]float64, n)
	var cov [][]float64
	for range 100 {
		grad := make([]float64, n)
		info := make([][]float64, n)
		for i := range n {
			info[i] = make([]float64, n)
		}
		for i := range n {
			for j := range n {
				if i == j || g[i][j] == 0 {
					continue
				}
				p := 1 / (1 + math.Exp(r[j]-r[i]))
				grad[i] += w[i][j] - g[i][j]*p
				f := g[i][j] * p * (1 - p)
				info[i][i] += f
				info[i][j] -= f
			}
		}
		// Drop the anchor and solve info·step = grad on the rest.
		sub := make([][]float64, n-1)
		for i := 1; i < n; i++ {
			sub[i-1] = info[i][1:]
		}
		inv, ok := invert(sub)
		if !ok {
			break // a level that met no one: no rating
		}
		cov = inv
		change := 0.0
		for i := 1; i < n; i++ {
			step := 0.0
			for j := 1; j < n; j++ {
				step += inv[i-1][j-1] * grad[j]
			}
			r[i] += step
			change = max(change, math.Abs(step))
		}
		if change < 1e-9 {
			break
		}
	}
	for i := range ratings {
		if ratings[i].Games > 0 {
			ratings[i].Score /= float64(ratings[i].Games)
		}
		ratings[i].Elo = r[i] * eloScale
		ratings[i].Low, ratings[i].High = ratings[i].Elo, ratings[i].Elo
		if i > 0 {
			if cov == nil {
				ratings[i].Low, ratings[i].High = math.Inf(-1), math.Inf(1)
				continue
			}
			half := 1.96 * math.Sqrt(cov[i-1][i-1]) * eloScale
			ratings[i].Low, ratings[i].High = ratings[i].Elo-half, ratings[i].Elo+half
		}
	}
	slices.SortStableFunc(ratings, func(a, b Rating) int {
		switch {
		case a.Elo > b.Elo:
			return -1
		case a.Elo < b.Elo:
			return 1
		}
		return 0
	})
	return ratings
}

// invert returns the inverse of the square matrix m by Gauss–Jordan
// elimination with partial pivoting; ok is false when m is singular.
func invert(m [][]float64) (inv [][]float64, ok bool) {
	n := len(m)
	a := make([][]float64, n)
	for i := range n {
		a[i] = make([]float64, 2*n)
		copy(a[i], m[i])
		a[i][n+i] = 1
	}
	for c := range n {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(a[i][c]) > math.Abs(a[p][c]) {
				p = i
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		d := a[c][c]
		for k := range a[c] {
			a[c][k] /= d
		}
		for i := range n {
			if i == c || a[i][c] == 0 {
				continue
			}
			f := a[i][c]
			for k := range a[i] {
				a[i][k] -= f * a[c][k]
			}
		}
	}
	inv = make([][]float64, n)
	for i := range n {
		inv[i] = a[i][n:]
	}
	return inv, true
}
