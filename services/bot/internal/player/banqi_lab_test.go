package player

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
)

// TestBanqiLab is a tool, not a test: with TABULEIRO_BANQI_LAB=N it plays N
// games of expert against hard as the bots command does (the same layouts
// and easy openings for the same seed), TABULEIRO_BANQI_LAB_MS (default 50)
// milliseconds a ply, TABULEIRO_BANQI_LAB_PARALLEL (default 1) games at
// once, and prints each game's ending, the expert's material balance and
// both sides' mean depth; with TABULEIRO_BANQI_LAB_LOG set, the last 60
// plies (depth, score, quiet count, balance) of every game the expert did
// not win, and the final board. For example
//
//	TABULEIRO_BANQI_LAB=40 TABULEIRO_BANQI_LAB_PARALLEL=2 go test -run TestBanqiLab -v ./services/bot/internal/player
func TestBanqiLab(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TABULEIRO_BANQI_LAB"))
	if n <= 0 {
		t.Skip("a tool: set TABULEIRO_BANQI_LAB to a number of games")
	}
	ms, _ := strconv.Atoi(os.Getenv("TABULEIRO_BANQI_LAB_MS"))
	if ms <= 0 {
		ms = 50
	}
	par, _ := strconv.Atoi(os.Getenv("TABULEIRO_BANQI_LAB_PARALLEL"))
	par = max(par, 1)
	verbose := os.Getenv("TABULEIRO_BANQI_LAB_LOG") != ""
	budget := time.Duration(ms) * time.Millisecond
	var mu sync.Mutex
	w, d, l := 0, 0, 0
	var depthSum [2]int
	var depthN [2]int
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			pair := rand.New(rand.NewPCG(1, uint64(i/2)))
			rng := rand.New(rand.NewPCG(1, uint64(i)|1<<63))
			b := []byte("KAABBRRNNCCPPPPPkaabbrrnnccppppp")
			pair.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
			p0, err := banqi.New("standard", string(b))
			if err != nil {
				t.Error(err)
				return
			}
			pos := p0.(banqi.Position)
			for k := 0; k < 4; k++ {
				c, _ := Select(context.Background(), pos.PublicView(), Easy, time.Second, pair)
				np, _ := pos.Play(c.Ply)
				pos = np.(banqi.Position)
			}
			expSeat := engine.First
			if i%2 == 1 {
				expSeat = engine.Second
			}
			var log []string
			ds, dn := [2]int{}, [2]int{}
			for !pos.Outcome().Over() {
				lvl, k := Hard, 1
				if pos.ToMove() == expSeat {
					lvl, k = Expert, 0
				}
				c, err := Select(context.Background(), pos.PublicView(), lvl, budget, rng)
				if err != nil {
					t.Error(err)
					return
				}
				ds[k] += c.Depth
				dn[k]++
				np, err := pos.Play(c.Ply)
				if err != nil {
					t.Error(err)
					return
				}
				pos = np.(banqi.Position)
				if verbose {
					log = append(log, fmt.Sprintf("%d %s %s d%d e%d q%d mat%+d", pos.Plies(), lvl, c.Ply, c.Depth, c.Eval, pos.Quiet(), matFor(pos, expSeat)))
				}
			}
			o := pos.Outcome()
			mu.Lock()
			defer mu.Unlock()
			res := "D"
			switch {
			case o.Result == engine.Draw:
				d++
			case o.Winner == expSeat:
				w++
				res = "W"
			default:
				l++
				res = "L"
			}
			for k := range 2 {
				depthSum[k] += ds[k]
				depthN[k] += dn[k]
			}
			fmt.Printf("game %d %s %s plies %d mat(expert) %+d depth e%.1f h%.1f\n", i, res, o.Reason, pos.Plies(), matFor(pos, expSeat), float64(ds[0])/float64(max(dn[0], 1)), float64(ds[1])/float64(max(dn[1], 1)))
			if verbose && res != "W" {
				for _, s := range log[max(0, len(log)-60):] {
					fmt.Println("   ", s)
				}
				fmt.Println(pos.Render())
			}
		}()
	}
	wg.Wait()
	fmt.Printf("RESULT expert %d-%d-%d hard: %.1f%% depth e%.2f h%.2f\n", w, d, l, 100*(float64(w)+float64(d)/2)/float64(n), float64(depthSum[0])/float64(depthN[0]), float64(depthSum[1])/float64(depthN[1]))
}

// matFor is seat s's material balance: the worth of the pieces it captured
// less that of those it lost.
func matFor(p banqi.Position, s engine.Seat) int {
	me := p.Colour(s)
	score := 0
	for _, pc := range bPieces {
		val := bValue[pc.Kind()] * p.CapturedCount(pc)
		if pc.Colour() == me {
			score -= val
		} else {
			score += val
		}
	}
	return score
}
