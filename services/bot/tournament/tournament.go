// Package tournament plays bot levels against each other directly through
// the engine and measures their strength: wins, draws and losses, the score,
// the Elo difference with its 95% interval, and the time each side thought.
// The tabuleiro command's `bots` subcommand is its front end.
package tournament

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/services/bot/internal/player"
)

// Config describes a match of Games games between levels A and B.
type Config struct {
	Game    engine.Game
	Variant string // empty: the game's default variant
	// A and B are level names: "easy", "medium", "hard", "expert", a
	// frozen past expert ("expert-1") or the Quoridor sparring racer
	// ("racer"), the last two in this process only.
	A, B  string
	Games int
	// Budget is each ply's thinking time; 0 gives each level its default.
	Budget time.Duration
	// Parallel is how many games run at once; 0 means GOMAXPROCS.
	Parallel int
	// Threads is how many goroutines the expert may search on (Lazy SMP;
	// the other levels and the frozen experts use one); 0 means the
	// processors each game has, GOMAXPROCS / Parallel, at least 1.
	Threads int
	// Seed makes the games (Banqi layouts, easy's choices) reproducible.
	Seed uint64
	// MaxPlies ends a game as a draw when no rule has; 0 means 1000.
	MaxPlies int
	// Opening is the number of plies that the easy level plays at the start
	// of each game before the two levels take over, so that the games
	// differ; games 2k and 2k+1 share their opening (and Banqi layout) with
	// the sides swapped, so that neither side gets the better ones.
	Opening int
	// Progress, if not nil, is called after every game with the number of
	// games done and the result so far (its Elapsed the time since the
	// start).
	Progress func(done int, sofar Result)
	// Remote, if not nil, is a running bot service that chooses every ply
	// (SelectPly) instead of the engine in this process.
	Remote botv1.BotServiceClient
}

// Result is the outcome of a match, from A's point of view.
type Result struct {
	Config              Config
	Variant             string
	Wins, Draws, Losses int
	// Capped counts the games ended as draws by Config.MaxPlies.
	Capped int
	// Think is the time each side took per ply.
	Think [2]Times
	// Endings counts the games by how they ended, as "A wins (goal)",
	// "draw (repetition)" or "B wins (deadline)".
	Endings map[string]int
	// Plies is the number of plies played in all.
	Plies int
	// Elapsed is the wall time of the match.
	Elapsed time.Duration
}

// Times summarises thinking times.
type Times struct {
	N    int
	Mean time.Duration
	P99  time.Duration
	Max  time.Duration
}

// ErrBadConfig reports a match that cannot be played.
var ErrBadConfig = errors.New("bad tournament config")

// Levels are the names of the levels a match or a ladder plays: the
// players' four levels, the frozen experts and the racer.
func Levels() []string {
	var names []string
	for _, l := range append(player.HarnessLevels(), player.Racer) {
		names = append(names, l.String())
	}
	return names
}

// banqiSet is the full Banqi set (B1), shuffled for every game's layout.
const banqiSet = "KAABBRRNNCCPPPPPkaabbrrnnccppppp"

type gameResult struct {
	score  float64 // for A: 1, 0.5 or 0
	ending string
	capped bool
	plies  int
	think  [2][]time.Duration
	err    error
}

// Run plays the match. A plays first in even-numbered games, B in odd ones.
// It stops early, returning what it has, when ctx is done.
func Run(ctx context.Context, cfg Config) (Result, error) {
	la, err := player.ParseHarnessLevel(cfg.A)
	if err != nil {
		return Result{}, fmt.Errorf("%w: --a: %w", ErrBadConfig, err)
	}
	lb, err := player.ParseHarnessLevel(cfg.B)
	if err != nil {
		return Result{}, fmt.Errorf("%w: --b: %w", ErrBadConfig, err)
	}
	if cfg.Remote != nil {
		for _, l := range [2]player.Level{la, lb} {
			if _, ok := protoLevel[l]; !ok {
				return Result{}, fmt.Errorf("%w: the bot service does not play the frozen level %s", ErrBadConfig, l)
			}
		}
	}
	v, err := games.Lookup(cfg.Game, cfg.Variant)
	if err != nil {
		return Result{}, err
	}
	if cfg.Games <= 0 {
		return Result{}, fmt.Errorf("%d games: %w", cfg.Games, ErrBadConfig)
	}
	if cfg.Budget < 0 {
		return Result{}, fmt.Errorf("budget %s: %w", cfg.Budget, ErrBadConfig)
	}
	if cfg.MaxPlies <= 0 {
		cfg.MaxPlies = 1000
	}
	par := cfg.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, cfg.Games)
	if cfg.Threads <= 0 {
		cfg.Threads = max(1, runtime.GOMAXPROCS(0)/par)
	}
	levels := [2]player.Level{la, lb}
	start := time.Now()
	res := Result{Config: cfg, Variant: v.ID, Endings: map[string]int{}}
	results := make(chan gameResult)
	next := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := playGame(ctx, cfg, v, levels, i)
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range cfg.Games {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	var think [2][]time.Duration
	var firstErr error
	done := 0
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		done++
		switch r.score {
		case 1:
			res.Wins++
		case 0:
			res.Losses++
		default:
			res.Draws++
		}
		if r.capped {
			res.Capped++
		}
		res.Endings[r.ending]++
		res.Plies += r.plies
		think[0] = append(think[0], r.think[0]...)
		think[1] = append(think[1], r.think[1]...)
		if cfg.Progress != nil {
			res.Elapsed = time.Since(start)
			cfg.Progress(done, res)
		}
	}
	res.Think[0], res.Think[1] = summarise(think[0]), summarise(think[1])
	res.Elapsed = time.Since(start)
	if firstErr != nil {
		return res, firstErr
	}
	return res, ctx.Err()
}

// playGame plays game i: levels[0] (A) moves first when i is even.
func playGame(ctx context.Context, cfg Config, v engine.Variant, levels [2]player.Level, i int) gameResult {
	pair := rand.New(rand.NewPCG(cfg.Seed, uint64(i/2)))
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)|1<<63))
	setup := ""
	if v.NeedsSetup {
		b := []byte(banqiSet)
		pair.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		setup = string(b)
	}
	pos, err := games.New(cfg.Game, v.ID, setup)
	if err != nil {
		return gameResult{err: err}
	}
	for n := 0; n < cfg.Opening && !pos.Outcome().Over(); n++ {
		c, err := player.Select(ctx, pos.View(pos.ToMove()), player.Easy, player.Easy.DefaultBudget(), pair)
		if err != nil {
			return gameResult{err: fmt.Errorf("game %d opening ply %d: %w", i, n+1, err)}
		}
		if pos, err = pos.Play(c.Ply); err != nil {
			return gameResult{err: fmt.Errorf("game %d opening ply %d: %w", i, n+1, err)}
		}
	}
	// seatOf[k] is the seat that side k (0 for A, 1 for B) plays.
	seatOf := [2]engine.Seat{engine.First, engine.Second}
	if i%2 == 1 {
		seatOf = [2]engine.Seat{engine.Second, engine.First}
	}
	var r gameResult
	for !pos.Outcome().Over() {
		if r.plies >= cfg.MaxPlies {
			r.capped = true
			r.score = 0.5
			r.ending = "draw (ply cap)"
			return r
		}
		if err := ctx.Err(); err != nil {
			return gameResult{err: err}
		}
		seat := pos.ToMove()
		k := 0
		if seat == seatOf[1] {
			k = 1
		}
		budget := cfg.Budget
		if budget == 0 {
			budget = levels[k].DefaultBudget()
		}
		ply, think, err := choose(ctx, cfg.Remote, pos.View(seat), levels[k], budget, cfg.Threads, rng)
		if err != nil {
			return gameResult{err: fmt.Errorf("game %d ply %d (%s): %w", i, r.plies+1, levels[k], err)}
		}
		r.think[k] = append(r.think[k], think)
		next, err := pos.Play(ply)
		if err != nil {
			return gameResult{err: fmt.Errorf("game %d ply %d: %s chose %s: %w", i, r.plies+1, levels[k], ply, err)}
		}
		pos = next
		r.plies++
	}
	switch o := pos.Outcome(); {
	case o.Result == engine.Draw:
		r.score = 0.5
		r.ending = fmt.Sprintf("draw (%s)", o.Reason)
	case o.Winner == seatOf[0]:
		r.score = 1
		r.ending = fmt.Sprintf("A wins (%s)", o.Reason)
	default:
		r.ending = fmt.Sprintf("B wins (%s)", o.Reason)
	}
	return r
}

// choose asks the level for its ply, in this process or from the remote
// service, and returns it with the time it took (for a remote service, the
// whole call).
func choose(ctx context.Context, remote botv1.BotServiceClient, v engine.View, lvl player.Level, budget time.Duration, threads int, rng *rand.Rand) (engine.Ply, time.Duration, error) {
	if remote == nil {
		c, err := player.SelectThreads(ctx, v, lvl, budget, threads, rng)
		return c.Ply, c.Elapsed, err
	}
	start := time.Now()
	resp, err := remote.SelectPly(ctx, &botv1.SelectPlyRequest{
		View:     viewProto(v),
		Level:    protoLevel[lvl],
		BudgetMs: budget.Milliseconds(),
		Seed:     rng.Uint64() | 1,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("select ply: %w", err)
	}
	think := time.Since(start)
	ply, err := v.ParsePly(resp.GetNotation())
	if err != nil {
		return nil, 0, fmt.Errorf("bot service answered %q: %w", resp.GetNotation(), err)
	}
	return ply, think, nil
}

var protoLevel = map[player.Level]gamev1.BotLevel{
	player.Easy:   gamev1.BotLevel_BOT_LEVEL_EASY,
	player.Medium: gamev1.BotLevel_BOT_LEVEL_MEDIUM,
	player.Hard:   gamev1.BotLevel_BOT_LEVEL_HARD,
	player.Expert: gamev1.BotLevel_BOT_LEVEL_EXPERT,
}

var protoGame = map[engine.Game]gamev1.Game{
	engine.Quoridor: gamev1.Game_GAME_QUORIDOR,
	engine.Corners:  gamev1.Game_GAME_CORNERS,
	engine.Banqi:    gamev1.Game_GAME_BANQI,
}

var protoSeat = map[engine.Seat]gamev1.Seat{
	engine.First:  gamev1.Seat_SEAT_FIRST,
	engine.Second: gamev1.Seat_SEAT_SECOND,
}

// viewProto is the API view of the side to move, as the match service
// sends it to the bot: identity fields and the engine encoding.
func viewProto(v engine.View) *gamev1.GameView {
	return &gamev1.GameView{
		Game:     protoGame[v.Variant().Game],
		Variant:  v.Variant().ID,
		Viewer:   protoSeat[v.ToMove()],
		ToMove:   protoSeat[v.ToMove()],
		PlyCount: int32(v.Plies()),
		Encoding: v.Encode(),
	}
}

func summarise(ds []time.Duration) Times {
	if len(ds) == 0 {
		return Times{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	p := int(math.Ceil(0.99*float64(len(ds)))) - 1
	return Times{N: len(ds), Mean: sum / time.Duration(len(ds)), P99: ds[p], Max: ds[len(ds)-1]}
}

// Games returns the number of games finished.
func (r Result) Games() int { return r.Wins + r.Draws + r.Losses }

// Score is A's score per game: wins plus half the draws, over the games.
func (r Result) Score() float64 {
	n := r.Games()
	if n == 0 {
		return 0
	}
	return (float64(r.Wins) + float64(r.Draws)/2) / float64(n)
}

// Elo returns the Elo difference of A over B implied by the score, and its
// 95% interval: the Wilson score interval of the score (draws as half a
// point), which stays finite when one side won every game. A score of 0 or
// 1 gives an infinite difference.
func (r Result) Elo() (diff, low, high float64) {
	n := float64(r.Games())
	if n == 0 {
		return 0, math.Inf(-1), math.Inf(1)
	}
	const z = 1.96
	s := r.Score()
	centre := (s + z*z/(2*n)) / (1 + z*z/n)
	half := z / (1 + z*z/n) * math.Sqrt(s*(1-s)/n+z*z/(4*n*n))
	return elo(s), elo(centre - half), elo(centre + half)
}

func elo(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}
