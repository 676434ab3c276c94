package player

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
// not win, and the final board. TABULEIRO_BANQI_LAB_NODES=E,H limits each
// ply to E positions for the expert and H for hard instead of the clock,
// so that the result does not depend on the machine's load and each game
// replays exactly (about 30000,35000 match 50 ms of processor time:
// with TABULEIRO_BANQI_LAB_PARALLEL=1 the lab prints each side's positions
// per processor millisecond); TABULEIRO_BANQI_LAB_ONLY=i plays game i
// alone, with the log its first 60 plies too; TABULEIRO_BANQI_LAB_POLICY=1
// turns the expert's reveal policy on (bExpertPolicy). For example
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
	// TABULEIRO_BANQI_LAB_NODES=E,H caps the expert's and hard's plies at E
	// and H positions instead, so that the result does not depend on the
	// machine's load. The budget is then a minute, out of the way: with a
	// second, a ply of 30000 positions on a machine at load 20 (a few
	// thousand positions a second for a niced lab) was cut by the clock, and
	// a game replayed alone went otherwise (game 6 twice: depth 3 and 2 at
	// ply 33, different scores after). The expert's table is as large (16
	// bits) either way.
	if s := os.Getenv("TABULEIRO_BANQI_LAB_NODES"); s != "" {
		e, h, _ := strings.Cut(s, ",")
		ne, _ := strconv.ParseInt(e, 10, 64)
		nh, _ := strconv.ParseInt(h, 10, 64)
		old := nodeLimits
		t.Cleanup(func() { nodeLimits = old })
		nodeLimits[Expert], nodeLimits[Hard] = ne, nh
		budget = time.Minute
	}
	if os.Getenv("TABULEIRO_BANQI_LAB_POLICY") == "1" {
		old := bExpertPolicy
		t.Cleanup(func() { bExpertPolicy = old })
		bExpertPolicy = true
	}
	var cpu [2]time.Duration
	var nodes [2]int64
	var mu sync.Mutex
	w, d, l := 0, 0, 0
	var depthSum [2]int
	var depthN [2]int
	var openSum [2]int
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	// TABULEIRO_BANQI_LAB_ONLY=i plays game i alone (a replay, with node
	// limits) and with the log shows its first 60 plies too.
	only := -1
	if s := os.Getenv("TABULEIRO_BANQI_LAB_ONLY"); s != "" {
		only, _ = strconv.Atoi(s)
	}
	for i := range n {
		if only >= 0 && i != only {
			continue
		}
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
			// traj records the expert's balance each time it changes.
			var traj []string
			lastMat := 0
			ds, dn := [2]int{}, [2]int{}
			// The expert's depth in the opening (16 or more face down) and
			// its balance 40 plies in.
			var openD, openN, mat40 int
			for !pos.Outcome().Over() {
				lvl, k := Hard, 1
				if pos.ToMove() == expSeat {
					lvl, k = Expert, 0
				}
				c0 := cpuTime()
				c, err := Select(context.Background(), pos.PublicView(), lvl, budget, rng)
				if err != nil {
					t.Error(err)
					return
				}
				if par == 1 {
					mu.Lock()
					cpu[k] += cpuTime() - c0
					nodes[k] += c.Nodes
					mu.Unlock()
				}
				ds[k] += c.Depth
				dn[k]++
				if k == 0 && bFaceDownTotal(pos.PublicView()) >= 16 {
					openD += c.Depth
					openN++
				}
				np, err := pos.Play(c.Ply)
				if err != nil {
					t.Error(err)
					return
				}
				pos = np.(banqi.Position)
				if mm := matFor(pos, expSeat); mm != lastMat {
					traj = append(traj, fmt.Sprintf("%d:%+d", pos.Plies(), mm))
					lastMat = mm
				}
				if pos.Plies() == 40 {
					mat40 = matFor(pos, expSeat)
				}
				if verbose {
					line := fmt.Sprintf("%d %s %s d%d e%d q%d mat%+d", pos.Plies(), lvl, c.Ply, c.Depth, c.Eval, pos.Quiet(), matFor(pos, expSeat))
					if c.Ply.(banqi.Move).Kind() == banqi.KindReveal {
						line += " " + pos.LastRevealed().String()
					}
					log = append(log, line)
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
			openSum[0] += openD
			openSum[1] += openN
			fmt.Printf("game %d %s %s plies %d mat(expert) %+d (ply 40 %+d) depth e%.1f (opening %.1f) h%.1f\n", i, res, o.Reason, pos.Plies(), matFor(pos, expSeat), mat40, float64(ds[0])/float64(max(dn[0], 1)), float64(openD)/float64(max(openN, 1)), float64(ds[1])/float64(max(dn[1], 1)))
			if verbose && res != "W" {
				fmt.Println("    balance", strings.Join(traj, " "))
			}
			if verbose && only >= 0 {
				for _, s := range log[:min(120, len(log))] {
					fmt.Println("   ", s)
				}
			}
			if verbose && res != "W" {
				for _, s := range log[max(0, len(log)-60):] {
					fmt.Println("   ", s)
				}
				fmt.Println(pos.Render())
			}
		}()
	}
	wg.Wait()
	if par == 1 {
		fmt.Printf("nodes per CPU ms: expert %.0f hard %.0f\n", float64(nodes[0])/float64(cpu[0].Milliseconds()+1), float64(nodes[1])/float64(cpu[1].Milliseconds()+1))
	}
	if only >= 0 {
		n = 1
	}
	fmt.Printf("RESULT expert %d-%d-%d hard: %.1f%% depth e%.2f (opening %.2f) h%.2f\n", w, d, l, 100*(float64(w)+float64(d)/2)/float64(n), float64(depthSum[0])/float64(depthN[0]), float64(openSum[0])/float64(max(openSum[1], 1)), float64(depthSum[1])/float64(depthN[1]))
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

// bFaceDownTotal is how many pieces of v are face down.
func bFaceDownTotal(v banqi.View) int {
	n := 0
	for _, p := range bPieces {
		n += v.FaceDownCount(p)
	}
	return n
}

// cpuTime is the process's processor time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
