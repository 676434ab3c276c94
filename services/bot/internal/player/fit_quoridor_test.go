package player

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
)

// TestFitQuoridorWalls is a tool, not a test: with TABULEIRO_FIT_LOGS
// naming lab logs (TestQuoridorLab's output, space-separated), it replays
// their games and fits by logistic regression the probability that the
// side to move wins from the path difference, the side to move's bonus and
// a value of n walls in hand that depends on the other pawn's path (up to
// fitBuckets steps): walls do less the nearer the other pawn is to its
// goal. Only positions where both sides hold walls count (the table's
// domain: the others are races the evaluation settles or plays out). It
// prints the table scaled to qStep a step as a Go literal for qWeights.wallsBy.
func TestFitQuoridorWalls(t *testing.T) {
	logs := strings.Fields(os.Getenv("TABULEIRO_FIT_LOGS"))
	if len(logs) == 0 {
		t.Skip("a tool: set TABULEIRO_FIT_LOGS to lab logs")
	}
	const n = 2 + 10*fitBuckets
	bucket := func(d int) int { return min(d, fitBuckets) - 1 }
	var samples []fitSample
	var count [n]int
	games := replayLabGames(t, logs, func(s *qState, won float64) {
		me := sideOfSeat(s.pos.ToMove())
		dMe, dOpp := s.dist(me), s.dist(1-me)
		wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
		if wMe == 0 || wOpp == 0 {
			return
		}
		smp := fitSample{
			idx: []int{0, 1, 2 + (wMe-1)*fitBuckets + bucket(dOpp), 2 + (wOpp-1)*fitBuckets + bucket(dMe)},
			val: []float64{1, float64(dOpp - dMe), 1, -1},
			won: won,
		}
		count[smp.idx[2]]++
		count[smp.idx[3]]++
		samples = append(samples, smp)
	})
	t.Logf("%d games, %d positions with walls on both sides", games, len(samples))
	beta, loss := fitSparse(n, samples, 1e-3*float64(len(samples))/n, 100)
	if beta == nil {
		t.Fatal("singular")
	}
	k := qStep / beta[1]
	t.Logf("log loss %.4f; tempo %.0f; slope %.4f a step", loss, beta[0]*k, beta[1])
	// A cell seen in fewer than fitSeen positions takes the value of the
	// nearest well-seen path length in its row.
	const fitSeen = 150
	for w := 1; w <= 10; w++ {
		row := 2 + (w-1)*fitBuckets
		for d := range fitBuckets {
			if count[row+d] >= fitSeen {
				continue
			}
			for r := 1; r < fitBuckets; r++ {
				if d+r < fitBuckets && count[row+d+r] >= fitSeen {
					beta[row+d] = beta[row+d+r]
					break
				}
				if d-r >= 0 && count[row+d-r] >= fitSeen {
					beta[row+d] = beta[row+d-r]
					break
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[11][%d]int{\n\t{},\n", fitBuckets)
	for w := 1; w <= 10; w++ {
		b.WriteString("\t{")
		for d := range fitBuckets {
			i := 2 + (w-1)*fitBuckets + d
			if d > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", int(math.Round(beta[i]*k)))
		}
		b.WriteString("}, // n")
		for d := range fitBuckets {
			fmt.Fprintf(&b, " %d", count[2+(w-1)*fitBuckets+d])
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	fmt.Println(b.String())
}

// TestFitQuoridorTerms is TestFitQuoridorWalls's companion tool: it fits
// a few terms over the same positions to tell which predict the result:
// the expert's evaluation alone, then the path difference with walls in
// hand (linear), the walls the other pawn's path leaves time to place
// (min(walls, its path)), and the best wall's gain against each pawn
// (capped at 6 steps, the side to move's and the other's apart).
func TestFitQuoridorTerms(t *testing.T) {
	logs := strings.Fields(os.Getenv("TABULEIRO_FIT_LOGS"))
	if len(logs) == 0 {
		t.Skip("a tool: set TABULEIRO_FIT_LOGS to lab logs")
	}
	models := []struct {
		name  string
		terms []string
		f     func(s *qState, me, dMe, dOpp, wMe, wOpp int) []float64
	}{
		{"expert table", []string{"tempo", "eval/100"}, func(s *qState, me, dMe, dOpp, wMe, wOpp int) []float64 {
			w := expertWeights
			w.endgame = false
			g := qGame{w: &w}
			return []float64{1, float64(g.evalDists(s, me, dMe, dOpp, -qEvalInf, qEvalInf)-w.tempo) / qStep}
		}},
		{"linear", []string{"tempo", "path", "walls"}, func(s *qState, me, dMe, dOpp, wMe, wOpp int) []float64 {
			return []float64{1, float64(dOpp - dMe), float64(wMe - wOpp)}
		}},
		{"fade", []string{"tempo", "path", "walls", "placeable"}, func(s *qState, me, dMe, dOpp, wMe, wOpp int) []float64 {
			return []float64{1, float64(dOpp - dMe), float64(wMe - wOpp), float64(min(wMe, dOpp) - min(wOpp, dMe))}
		}},
		{"gain", []string{"tempo", "path", "walls", "placeable", "my gain", "their gain"}, func(s *qState, me, dMe, dOpp, wMe, wOpp int) []float64 {
			gMe := s.wallsGain(1-me, dOpp, 6, false, 1)
			gOpp := s.wallsGain(me, dMe, 6, false, 1)
			return []float64{1, float64(dOpp - dMe), float64(wMe - wOpp), float64(min(wMe, dOpp) - min(wOpp, dMe)), float64(gMe), -float64(gOpp)}
		}},
		{"gain2", []string{"tempo", "path", "walls", "placeable", "my 2-wall gain", "their 2-wall gain"}, func(s *qState, me, dMe, dOpp, wMe, wOpp int) []float64 {
			gMe := s.wallsGain(1-me, dOpp, 8, false, min(wMe, 2))
			gOpp := s.wallsGain(me, dMe, 8, false, min(wOpp, 2))
			return []float64{1, float64(dOpp - dMe), float64(wMe - wOpp), float64(min(wMe, dOpp) - min(wOpp, dMe)), float64(gMe), -float64(gOpp)}
		}},
	}
	for _, m := range models {
		var samples []fitSample
		games := replayLabGames(t, logs, func(s *qState, won float64) {
			me := sideOfSeat(s.pos.ToMove())
			dMe, dOpp := s.dist(me), s.dist(1-me)
			wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
			if wMe > 0 && wOpp > 0 {
				x := m.f(s, me, dMe, dOpp, wMe, wOpp)
				idx := make([]int, len(x))
				for i := range idx {
					idx[i] = i
				}
				samples = append(samples, fitSample{idx, x, won})
			}
		})
		beta, loss := fitSparse(len(m.terms), samples, 0, 50)
		if beta == nil {
			t.Fatal("singular")
		}
		var terms []string
		for i, name := range m.terms {
			terms = append(terms, fmt.Sprintf("%s %.0f", name, qStep*beta[i]/beta[1]))
		}
		t.Logf("%s: %d games, %d positions, log loss %.4f: %s (a step %d)", m.name, games, len(samples), loss, strings.Join(terms, ", "), qStep)
	}
}

// replayLabGames replays the games of lab logs, calling f with each
// position before a ply and the result for its side to move (1 won, 0.5
// drawn, 0 lost); it returns the number of games.
func replayLabGames(t *testing.T, logs []string, f func(s *qState, won float64)) int {
	games := 0
	for _, name := range logs {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			head, plies, ok := strings.Cut(line, ": ")
			if !ok || !strings.HasPrefix(line, "game ") {
				continue
			}
			var i, np int
			var res, seat string
			var depth float64
			if _, err := fmt.Sscanf(head, "game %d %s plies %d expert %s depth %f", &i, &res, &np, &seat, &depth); err != nil {
				continue
			}
			winner := engine.First
			if seat == "second" {
				winner = engine.Second
			}
			if res == "L" {
				winner = winner.Other()
			}
			// Replay first: a game whose plies do not end it is left out.
			pos, _ := quoridor.NewPosition("standard", "")
			var seen []quoridor.Position
			for _, p := range strings.Fields(plies) {
				m, err := quoridor.ParseMove(p)
				if err != nil {
					break
				}
				seen = append(seen, pos)
				if pos, err = pos.PlayMove(m); err != nil {
					break
				}
			}
			if !pos.Outcome().Over() && res != "D" || len(seen) != len(strings.Fields(plies)) {
				continue
			}
			games++
			for _, p := range seen {
				won := 0.0
				switch {
				case res == "D":
					won = 0.5
				case p.ToMove() == winner:
					won = 1
				}
				s := newQState(p)
				f(&s, won)
			}
		}
	}
	return games
}
