package player

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// TestTuneQuoridor is a tool, not a test: with TABULEIRO_TUNE_QUORIDOR=N
// it plays N self-play games of the expert's evaluation (or of the weights
// TABULEIRO_TUNE_WEIGHTS gives as "tempo,w1,…,w10", to iterate the fit)
// and selective search at a fixed depth (TABULEIRO_TUNE_DEPTH, default 3;
// no clock, so the games do not depend on the machine), each after an
// opening of TABULEIRO_TUNE_OPENING (default 6) easy plies, and fits by
// logistic regression over their positions the probability that the side
// to move wins as a function of the evaluation's terms: the path
// difference, the side to move's bonus and the walls left, once with one
// value per wall and once with a value per count of walls left (the races
// Eval settles get terms of their own so that they bias nothing). It
// prints them scaled to qStep a step; the per-count table comes as a
// qWeights literal and as TABULEIRO_TUNE_WEIGHTS for the next round. The
// fit only advises: the per-count table mixes the value of walls with the
// phase of the game (300 games gave a non-monotone table), so weights are
// kept only when matches (`tabuleiro bots`) favour them. Run it as
//
//	TABULEIRO_TUNE_QUORIDOR=300 go test -run TestTuneQuoridor -v ./services/bot/internal/player
func TestTuneQuoridor(t *testing.T) {
	games, _ := strconv.Atoi(os.Getenv("TABULEIRO_TUNE_QUORIDOR"))
	if games <= 0 {
		t.Skip("a tuning tool: set TABULEIRO_TUNE_QUORIDOR to a number of games")
	}
	depth := envInt("TABULEIRO_TUNE_DEPTH", 3)
	opening := envInt("TABULEIRO_TUNE_OPENING", 6)
	g := expertQGame()
	if v := os.Getenv("TABULEIRO_TUNE_WEIGHTS"); v != "" {
		w, err := parseWeights(v)
		if err != nil {
			t.Fatal(err)
		}
		g.w = &w
	}
	samples, stats := tuneSelfPlay(t, g, games, depth, opening)
	t.Logf("%d games (%s), %d positions", games, stats, len(samples))
	// The linear fit: one value per wall (the tables per count are
	// confounded with the phase of the game).
	lin := make([]tuneSample, len(samples))
	for i, smp := range samples {
		lin[i] = smp
		lin[i].x[2] = 0
		for n := 1; n <= 10; n++ {
			lin[i].x[2] += float64(n) * smp.x[1+n]
			if n > 1 {
				lin[i].x[1+n] = 0
			}
		}
	}
	lb, lloss := fitLogistic(lin, 200)
	t.Logf("linear: log loss %.4f; tempo %.0f, a wall %.0f (a step %d)", lloss, qStep*lb[0]/lb[1], qStep*lb[2]/lb[1], qStep)
	beta, loss := fitLogistic(samples, 200)
	w := weightsOf(beta)
	t.Logf("log loss %.4f; logistic slope per step %.4f; races won %+.2f, lost %+.2f", loss, beta[1], beta[12], beta[13])
	t.Logf("qWeights{tempo: %d, walls: %#v}", w.tempo, w.walls)
	t.Logf("TABULEIRO_TUNE_WEIGHTS=%d,%s", w.tempo, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(w.walls[1:])), ","), "[]"))
}

// parseWeights reads "tempo,w1,…,w10".
func parseWeights(s string) (qWeights, error) {
	var w qWeights
	f := strings.Split(s, ",")
	if len(f) != 11 {
		return w, fmt.Errorf("weights %q: want tempo and ten wall values", s)
	}
	for i, v := range f {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return w, fmt.Errorf("weights %q: %w", s, err)
		}
		if i == 0 {
			w.tempo = n
		} else {
			w.walls[i] = n
		}
	}
	return w, nil
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// tuneFeatures is the number of terms fitted: a constant (the side to
// move's bonus), the path difference, one per count of walls left (1–10;
// none is worth 0), +1 for the mover's count and -1 for the other's, and
// two for the races Eval settles (won, lost for the mover), which are fitted
// only so that they do not bias the others.
const tuneFeatures = 14

type tuneSample struct {
	x   [tuneFeatures]float64
	won float64 // 1 when the side to move won
}

// tuneFeaturesOf returns the terms of position s for its side to move.
func tuneFeaturesOf(s *qState) ([tuneFeatures]float64, bool) {
	var x [tuneFeatures]float64
	me := sideOfSeat(s.pos.ToMove())
	dMe, dOpp := s.dist(me), s.dist(1-me)
	wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
	if wOpp == 0 && dMe <= dOpp {
		x[12] = 1
	}
	if wMe == 0 && dOpp < dMe {
		x[13] = 1
	}
	x[0] = 1
	x[1] = float64(dOpp - dMe)
	if wMe > 0 {
		x[1+wMe]++
	}
	if wOpp > 0 {
		x[1+wOpp]--
	}
	return x, true
}

// weightsOf scales fitted coefficients to evaluation units.
func weightsOf(beta [tuneFeatures]float64) qWeights {
	var w qWeights
	k := qStep / beta[1]
	w.tempo = int(math.Round(beta[0] * k))
	for n := 1; n <= 10; n++ {
		w.walls[n] = int(math.Round(beta[1+n] * k))
	}
	return w
}

// tuneSelfPlay plays the games two at a time and returns their positions
// labelled with the result, draws left out.
func tuneSelfPlay(t *testing.T, g qGame, games, depth, opening int) ([]tuneSample, string) {
	var (
		mu      sync.Mutex
		samples []tuneSample
		wins    [2]int
		draws   int
		wg      sync.WaitGroup
		next    = make(chan int)
	)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rng := rand.New(rand.NewPCG(uint64(i), 77))
				got, winner := tuneGame(t, g, depth, opening, rng)
				mu.Lock()
				samples = append(samples, got...)
				if winner == engine.NoSeat {
					draws++
				} else {
					wins[sideOfSeat(winner)]++
				}
				mu.Unlock()
			}
		}()
	}
	for i := range games {
		next <- i
	}
	close(next)
	wg.Wait()
	return samples, fmt.Sprintf("white %d, black %d, drawn %d", wins[0], wins[1], draws)
}

// tuneGame plays one self-play game; its positions come back labelled.
func tuneGame(t *testing.T, g qGame, depth, opening int, rng *rand.Rand) ([]tuneSample, engine.Seat) {
	p, err := quoridor.NewPosition("standard", "")
	if err != nil {
		t.Fatal(err)
	}
	for range opening {
		c, err := easyQuoridor(p, rng)
		if err != nil {
			t.Fatal(err)
		}
		p = p.PlayUnchecked(c.Ply.(quoridor.Move))
	}
	type seen struct {
		x    [tuneFeatures]float64
		seat engine.Seat
	}
	var pos []seen
	for !p.Outcome().Over() && p.Plies() < 300 {
		s := newQState(p)
		if x, ok := tuneFeaturesOf(&s); ok {
			pos = append(pos, seen{x, p.ToMove()})
		}
		r := search.Iterative[qState, quoridor.Move](context.Background(), g, s,
			search.Limits{Depth: depth, TableBits: 16, Shuffle: rng, Refinements: expertRefinements})
		if r.Legal == 0 {
			t.Fatalf("%s: no move", p.Encode())
		}
		p = p.PlayUnchecked(r.Move)
	}
	o := p.Outcome()
	if o.Result != engine.Win {
		return nil, engine.NoSeat
	}
	out := make([]tuneSample, len(pos))
	for i, q := range pos {
		out[i].x = q.x
		if q.seat == o.Winner {
			out[i].won = 1
		}
	}
	return out, o.Winner
}

// fitLogistic fits P(won) = σ(β·x) by Newton's method with a light ridge
// penalty (which keeps unseen wall counts at 0), returning β and the mean
// log loss.
func fitLogistic(samples []tuneSample, iters int) ([tuneFeatures]float64, float64) {
	sparse := make([]fitSample, len(samples))
	for k, s := range samples {
		for i, x := range s.x {
			if x != 0 {
				sparse[k].idx = append(sparse[k].idx, i)
				sparse[k].val = append(sparse[k].val, x)
			}
		}
		sparse[k].won = s.won
	}
	beta, loss := fitSparse(tuneFeatures, sparse, 1e-3*float64(len(samples)), iters)
	var out [tuneFeatures]float64
	copy(out[:], beta)
	return out, loss
}

// fitSample is a position's terms for fitSparse, only those not zero:
// the value val[k] of term idx[k]; won is 1 when the side to move won (0.5
// a draw).
type fitSample struct {
	idx []int
	val []float64
	won float64
}

// fitSparse fits P(won) = σ(β·x) over n terms by Newton's method with the
// ridge penalty ridge, returning β (nil if the system is singular) and
// the mean log loss.
func fitSparse(n int, samples []fitSample, ridge float64, iters int) ([]float64, float64) {
	beta := make([]float64, n)
	loss := 0.0
	for range iters {
		grad := make([]float64, n)
		hess := make([][]float64, n)
		for i := range hess {
			hess[i] = make([]float64, n)
		}
		loss = 0
		for _, s := range samples {
			z := 0.0
			for k, i := range s.idx {
				z += beta[i] * s.val[k]
			}
			p := min(max(1/(1+math.Exp(-z)), 1e-12), 1-1e-12)
			loss -= s.won*math.Log(p) + (1-s.won)*math.Log(1-p)
			for k, i := range s.idx {
				grad[i] += (p - s.won) * s.val[k]
				for l, j := range s.idx {
					hess[i][j] += p * (1 - p) * s.val[k] * s.val[l]
				}
			}
		}
		for i := range n {
			grad[i] += ridge * beta[i]
			hess[i][i] += ridge
		}
		step, ok := solve(hess, grad)
		if !ok {
			return nil, loss / float64(max(len(samples), 1))
		}
		size := 0.0
		for i := range n {
			beta[i] -= step[i]
			size += math.Abs(step[i])
		}
		if size < 1e-9 {
			break
		}
	}
	return beta, loss / float64(max(len(samples), 1))
}

// solve solves a·x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < n; k++ {
				a[r][k] -= f * a[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// TestFitLogistic checks the fit on samples drawn from known
// coefficients: it recovers them.
func TestFitLogistic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	want := [tuneFeatures]float64{0.2, 0.5, 0.3, 0.5, 0.7, 0.8, 0.9, 1, 1.05, 1.1, 1.15, 1.2, 0, 0}
	var samples []tuneSample
	for range 40000 {
		var s tuneSample
		s.x[0] = 1
		s.x[1] = float64(rng.IntN(13) - 6)
		s.x[1+1+rng.IntN(10)]++
		s.x[1+1+rng.IntN(10)]--
		z := 0.0
		for i := range tuneFeatures {
			z += want[i] * s.x[i]
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			s.won = 1
		}
		samples = append(samples, s)
	}
	got, _ := fitLogistic(samples, 50)
	// Only differences between wall terms are identified (each sample has
	// one +1 and one -1), so compare them relative to one wall.
	for i := range tuneFeatures {
		w, g := want[i], got[i]
		if i >= 2 && i <= 11 {
			w, g = want[i]-want[2], got[i]-got[2]
		}
		if math.Abs(w-g) > 0.1 {
			t.Errorf("coefficient %d: got %.3f, want %.3f", i, g, w)
		}
	}
}
