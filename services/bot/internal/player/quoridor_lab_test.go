package player

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
)

// TestQuoridorLab is a tool, not a test: with TABULEIRO_QUORIDOR_LAB=N it
// plays N games of expert against hard (or the level that
// TABULEIRO_QUORIDOR_LAB_OPPONENT names, with the expert's node limit) as the bots command does (the same
// easy openings of TABULEIRO_QUORIDOR_LAB_OPENING plies, default 4, shared
// by each pair of games with sides swapped), the expert limited to
// TABULEIRO_QUORIDOR_LAB_NODES positions a ply (default 300000, about 200
// ms of one core here) instead of a clock, so that a result does not depend
// on the machine's load and every game replays exactly (hard is a fixed
// depth-3 search either way). TABULEIRO_QUORIDOR_LAB_PARALLEL (default 1)
// games at once; TABULEIRO_QUORIDOR_LAB_ONLY=i plays game i alone (_FROM=f games f to N-1);
// TABULEIRO_QUORIDOR_LAB_LOG=1 prints every ply (depth, score, path
// lengths, walls left) of the games the expert did not win.
// TABULEIRO_QUORIDOR_LAB_EXPERT names a variant of the expert's adapter to
// screen (see labExpert), so that a change is measured on the same games as
// today's expert. For example
//
//	TABULEIRO_QUORIDOR_LAB=40 TABULEIRO_QUORIDOR_LAB_PARALLEL=2 go test -run TestQuoridorLab -v ./services/bot/internal/player
func TestQuoridorLab(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TABULEIRO_QUORIDOR_LAB"))
	if n <= 0 {
		t.Skip("a tool: set TABULEIRO_QUORIDOR_LAB to a number of games")
	}
	par := max(envInt("TABULEIRO_QUORIDOR_LAB_PARALLEL", 1), 1)
	opening := envInt("TABULEIRO_QUORIDOR_LAB_OPENING", 4)
	nodes := envInt("TABULEIRO_QUORIDOR_LAB_NODES", 300000)
	only := envInt("TABULEIRO_QUORIDOR_LAB_ONLY", -1)
	// TABULEIRO_QUORIDOR_LAB_FROM=f plays games f to N-1 only: a longer
	// run's continuation, the first f games already played.
	from := envInt("TABULEIRO_QUORIDOR_LAB_FROM", 0)
	verbose := os.Getenv("TABULEIRO_QUORIDOR_LAB_LOG") != ""
	variant := os.Getenv("TABULEIRO_QUORIDOR_LAB_EXPERT")
	// TABULEIRO_QUORIDOR_LAB_MS=m gives the expert m milliseconds a ply
	// instead of the node limit, as the bots command does.
	budget := time.Minute
	if ms := envInt("TABULEIRO_QUORIDOR_LAB_MS", 0); ms > 0 {
		budget, nodes = time.Duration(ms)*time.Millisecond, 0
	}
	old, oldLimits, oldRef := expertQ, nodeLimits, expertRefinements
	t.Cleanup(func() { expertQ, nodeLimits, expertRefinements = old, oldLimits, oldRef })
	if variant != "" {
		g, ok := labExpert(variant)
		if !ok {
			t.Fatalf("no expert variant %q", variant)
		}
		expertQ = g
	}
	nodeLimits[Expert] = int64(nodes)
	// TABULEIRO_QUORIDOR_LAB_OPPONENT=expert-1 plays the frozen expert-1
	// (with the same node limit) instead of hard.
	opp := Hard
	if s := os.Getenv("TABULEIRO_QUORIDOR_LAB_OPPONENT"); s != "" {
		var err error
		if opp, err = ParseHarnessLevel(s); err != nil {
			t.Fatal(err)
		}
		nodeLimits[opp] = int64(nodes)
		// TABULEIRO_QUORIDOR_LAB_OPP_NODES=n gives the opponent n
		// positions a ply instead of the expert's limit.
		if on := envInt("TABULEIRO_QUORIDOR_LAB_OPP_NODES", 0); on > 0 {
			nodeLimits[opp] = int64(on)
		}
	}
	// TABULEIRO_QUORIDOR_LAB_REDUCE=r sets the expert's late-move
	// reductions (search.Refinements.Reduce; 0 turns them off).
	if r := envInt("TABULEIRO_QUORIDOR_LAB_REDUCE", -1); r >= 0 {
		expertRefinements.Reduce = r
	}
	// TABULEIRO_QUORIDOR_LAB_RACER=g,b plays the racer's one-ply policy
	// (racerPolicy) with the least race gains g and b for a wall
	// (racerGain, racerBehindGain) instead of the searching racer.
	oldGain, oldBehind, oldPolicy := racerGain, racerBehindGain, racerPolicy
	t.Cleanup(func() { racerGain, racerBehindGain, racerPolicy = oldGain, oldBehind, oldPolicy })
	if s := os.Getenv("TABULEIRO_QUORIDOR_LAB_RACER"); s != "" {
		racerPolicy = true
		if _, err := fmt.Sscanf(s, "%d,%d", &racerGain, &racerBehindGain); err != nil {
			t.Fatalf("TABULEIRO_QUORIDOR_LAB_RACER=%q: %v", s, err)
		}
	}
	// TABULEIRO_QUORIDOR_LAB_ENGINE="command" plays an outside engine
	// instead of a level: the lab starts the command (sh -c) once a game,
	// writes it a line for each of its plies (the game's number, then the
	// plies so far in RULES.md notation, separated by spaces) and reads
	// its ply from a line of its output.
	engineCmd := os.Getenv("TABULEIRO_QUORIDOR_LAB_ENGINE")
	oppName := opp.String()
	if engineCmd != "" {
		oppName = "engine " + engineCmd
	}
	var mu sync.Mutex
	w, d, l := 0, 0, 0
	var depthSum, depthN int
	var nodeSum int64
	start := time.Now()
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i := range n {
		if only >= 0 && i != only || i < from {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			pair := rand.New(rand.NewPCG(1, uint64(i/2)))
			rng := rand.New(rand.NewPCG(1, uint64(i)|1<<63))
			pos, err := quoridor.NewPosition("standard", "")
			if err != nil {
				t.Error(err)
				return
			}
			var moves, log []string
			for k := 0; k < opening; k++ {
				c, _ := Select(context.Background(), pos, Easy, time.Second, pair)
				pos, _ = pos.PlayMove(c.Ply.(quoridor.Move))
				moves = append(moves, c.Ply.String())
			}
			expSeat := engine.First
			if i%2 == 1 {
				expSeat = engine.Second
			}
			var outside *labEngine
			if engineCmd != "" {
				if outside, err = startLabEngine(engineCmd); err != nil {
					t.Error(err)
					return
				}
				defer outside.close()
			}
			ds, dn := 0, 0
			var ns int64
			// A game no rule has ended by 1000 plies (both pawns
			// shuffling) is a draw, as in the bots command.
			for !pos.Outcome().Over() && pos.Plies() < 1000 {
				lvl := opp
				if pos.ToMove() == expSeat {
					lvl = Expert
				}
				var c Choice
				if lvl == Expert || outside == nil {
					c, err = Select(context.Background(), pos, lvl, budget, rng)
				} else {
					c.Ply, err = outside.ply(i, moves)
				}
				if err != nil {
					t.Errorf("game %d: %v", i, err)
					return
				}
				if lvl == Expert {
					ds += c.Depth
					dn++
					ns += c.Nodes
				}
				next, err := pos.PlayMove(c.Ply.(quoridor.Move))
				if err != nil {
					t.Errorf("game %d: %s: %v", i, c.Ply, err)
					return
				}
				pos = next
				moves = append(moves, c.Ply.String())
				if verbose {
					s := newQState(pos)
					e := sideOfSeat(expSeat)
					log = append(log, fmt.Sprintf("%3d %-6s %-4s d%d e%+5d  path e%d h%d  walls e%d h%d", pos.Plies(), lvl, c.Ply, c.Depth, c.Eval,
						s.dist(e), s.dist(1-e), pos.WallsLeft(expSeat), pos.WallsLeft(expSeat.Other())))
				}
			}
			o := pos.Outcome()
			mu.Lock()
			defer mu.Unlock()
			res := "D"
			switch {
			case !o.Over() || o.Result == engine.Draw:
				d++
			case o.Winner == expSeat:
				w++
				res = "W"
			default:
				l++
				res = "L"
			}
			depthSum += ds
			depthN += dn
			nodeSum += ns
			fmt.Printf("game %d %s plies %d expert %s depth %.1f: %s\n", i, res, pos.Plies(), expSeat, float64(ds)/float64(max(dn, 1)), strings.Join(moves, " "))
			if verbose && res != "W" {
				for _, s := range log {
					fmt.Println("   ", s)
				}
				fmt.Println(pos.Render())
			}
		}()
	}
	wg.Wait()
	if only >= 0 {
		n = 1
	} else {
		n -= min(from, n)
	}
	fmt.Printf("RESULT expert(%s, %d nodes, budget %s) %d-%d-%d %s: %.1f%% depth %.2f, %.0f nodes a ply, %s\n", cmpOr(variant, "today"), nodes, budget, w, d, l, oppName,
		100*(float64(w)+float64(d)/2)/float64(n), float64(depthSum)/float64(max(depthN, 1)), float64(nodeSum)/float64(max(depthN, 1)), time.Since(start).Round(time.Second))
}

// labEngine is an outside engine the lab plays (TABULEIRO_QUORIDOR_LAB_ENGINE).
type labEngine struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startLabEngine(command string) (*labEngine, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", command, err)
	}
	return &labEngine{cmd: cmd, in: in, out: bufio.NewScanner(out)}, nil
}

// ply asks the engine for its ply in game i after moves.
func (e *labEngine) ply(i int, moves []string) (quoridor.Move, error) {
	if _, err := fmt.Fprintf(e.in, "%d %s\n", i, strings.Join(moves, " ")); err != nil {
		return 0, fmt.Errorf("outside engine: %w", err)
	}
	if !e.out.Scan() {
		return 0, fmt.Errorf("outside engine: no answer after %d plies (%v)", len(moves), e.out.Err())
	}
	m, err := quoridor.ParseMove(strings.TrimSpace(e.out.Text()))
	if err != nil {
		return 0, fmt.Errorf("outside engine after %d plies: %w", len(moves), err)
	}
	return m, nil
}

func (e *labEngine) close() {
	_ = e.in.Close()
	_ = e.cmd.Wait()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// labExpert returns a named variant of the expert's adapter for the lab:
// fw2 and fw3 search every wall for two or three plies from the root;
// reserve values walls as hard does (reserveWalls); fitted with the table
// fitted on self-play that the expert used before (half of hard's); threat
// and mover credit walls in hand with half a step per step of the best
// wall they could place now (qWeights.threat; mover: the side to move's
// only); endgame plays wall endgames out (quoridor_endgame.go; endgameu
// uncharged); scale<N> scales walls in hand by the other path up to N
// steps; ext<G>x<E> searches a ply deeper below a wall of G steps or more,
// E plies a line at most.
func labExpert(name string) (qGame, bool) {
	g := expertQGame()
	endgamePairs = name == "pairs"
	endgameLeast = endgameGain
	switch name {
	case "fw2":
		g.fullWidth = 2
	case "fw3":
		g.fullWidth = 3
	case "reserve":
		g.w = &qWeights{tempo: qStep / 2, walls: reserveWalls}
	case "fitted":
		g.w = &qWeights{tempo: qStep / 2, walls: [11]int{0, 150, 290, 420, 540, 650, 750, 840, 920, 990, 1050}}
	case "threat": // walls also credited by their best wall's gain, both sides
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, threat: 50, threatCap: wallGainCap}
	case "mover": // the same, the side to move's walls only
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, threat: 50, moverOnly: true, threatCap: wallGainCap}
	case "threat9", "threat6", "threat4", "threat3", "threat6f", "threat4f", "threat3f": // threat, a gain credited up to 6, 4 or 3 steps (f: the layered wallGain)
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, threat: 50, threatCap: int(name[6] - '0'), layered: strings.HasSuffix(name, "f")}
	case "fade", "fade1", "fade2", "fade3", "fade4": // walls valued up to the other path's length (+1, +2)
		slack := 0
		if len(name) > 4 {
			slack = int(name[4] - '0')
		}
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, fade: true, fadeSlack: slack}
	case "turns", "turns0": // fade1 (fade), counting the other side's walls as turns too
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, fade: true, fadeSlack: b2i(name == "turns"), fadeTurns: true}
	case "fade6": // fade with threat6
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, fade: true, threat: 50, threatCap: 6}
	case "worth6", "worth4", "worth3": // threat6, 4 or 3 over the fitted table: walls worth more what they can do
		g.w = &qWeights{tempo: qStep / 2, walls: [11]int{0, 150, 290, 420, 540, 650, 750, 840, 920, 990, 1050}, threat: 50, threatCap: int(name[5] - '0')}
	case "force6", "force4", "force8": // walls worth a third of a step each plus a step a step their best two (greedy) force, up to 6, 4 or 8 steps
		g.w = &qWeights{tempo: qStep / 2, walls: racerWeights.walls, threat: qStep, threatCap: int(name[5] - '0'), threatWalls: 2}
	case "pocket6", "pocket4": // threat6, threat4 with the best two walls (greedy) of each side
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, threat: 50, threatCap: int(name[6] - '0'), threatWalls: 2}
	case "fpocket6", "fpocket4": // fade1 with pocket6, pocket4
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, fade: true, fadeSlack: 1, threat: 50, threatCap: int(name[7] - '0'), threatWalls: 2}
	case "efade0", "efade1", "efade2", "efade3": // the expert (wall endgames played out) with fade0..fade3
		w := expertWeights
		w.fade, w.fadeSlack = true, int(name[5]-'0')
		g.w = &w
	case "fit2d": // walls in hand valued by the other pawn's path, fitted on lab games (TestFitQuoridorWalls)
		w := expertWeights
		w.wallsBy = &[11][fitBuckets]int{
			{},
			{-819, -819, -706, -588, -542, -481, -551, -481, -497, -512},
			{-178, -178, -178, -178, -178, -79, -16, -172, -241, -372},
			{-254, -254, -254, -254, -254, 138, 138, -31, -236, -236},
			{-372, -372, -372, -372, -151, 62, -19, -67, -142, -117},
			{-130, -130, -130, -130, 87, 25, 92, 162, -48, 12},
			{-54, -54, -54, 121, 277, 92, 127, 256, 177, 112},
			{464, 464, 464, 266, 461, 366, 361, 362, 336, 279},
			{457, 457, 457, 414, 513, 400, 400, 474, 485, 397},
			{154, 154, 266, 371, 348, 391, 511, 469, 687, 421},
			{111, 111, 355, 310, 498, 433, 525, 519, 833, 306},
		}
		g.w = &w
	case "lfade": // walls in hand 0.83 of a step each, 0.59 more for each the other pawn's path leaves time to place (TestFitQuoridorTerms, fade)
		w := expertWeights
		w.wallsBy = new([11][fitBuckets]int)
		for n := 1; n <= 10; n++ {
			for d := 1; d <= fitBuckets; d++ {
				w.wallsBy[n][d-1] = 83*n + 59*min(n, d)
			}
		}
		g.w = &w
	case "halo": // narrow's walls against the other pawn widened to a step from its shortest paths (qGame.halo)
		g.halo = true
	case "gain1": // the expert, its playouts' side holding walls placing walls of gain 1 too (endgameLeast)
		endgameLeast = 1
	case "pairs": // the expert, its playouts' side holding walls placing pairs (endgamePairs)
		endgamePairs = true
	case "table": // the fixed table alone, without the wall endgame's playouts
		w := expertWeights
		w.endgame = false
		g.w = &w
	case "endgame", "endgameu": // the fixed table, wall endgames played out (u: uncharged)
		w := expertWeights
		w.endgame, w.raceFree = true, name == "endgameu"
		g.w = &w
	case "fpocket6m": // fpocket6, only the pocket around the side to move's pawn
		g.w = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, fade: true, fadeSlack: 1, threat: 50, threatCap: 6, threatWalls: 2, pocketOnly: true}
	default:
		// race<D>[k<K>][n<N>][g<G>][f][u]: the fixed table with the wall-race
		// search of D plies at the leaves where both paths are at most N
		// steps (default 6) and the side not to move holds walls (with g:
		// a wall that adds G steps or more to the mover's path), each
		// side's K walls of largest race gain (default 3) and its step
		// (quoridor_race.go).
		if a, ok := strings.CutPrefix(name, "ext"); ok { // ext<G>x<E>: a ply more below a wall of G steps, E plies a line
			var gain, plies int
			if _, err := fmt.Sscanf(a, "%dx%d", &gain, &plies); err != nil || gain <= 0 || plies <= 0 {
				return g, false
			}
			w := expertWeights
			w.extGain = gain
			g.w = &w
			expertRefinements.Extensions = plies
			return g, true
		}
		// flat<N>: every wall in hand worth N points (the racer's 35, say),
		// wall endgames played out as the expert does.
		if a, ok := strings.CutPrefix(name, "flat"); ok {
			n, err := strconv.Atoi(a)
			if err != nil || n <= 0 {
				return g, false
			}
			w := expertWeights
			for i := range w.walls {
				w.walls[i] = n * i
			}
			g.w = &w
			return g, true
		}
		// scale<N>: qWeights.scaleNear N; answer<N>: qWeights.answer N.
		for prefix, set := range map[string]func(*qWeights, int){
			"scale":  func(w *qWeights, n int) { w.scaleNear = n },
			"answer": func(w *qWeights, n int) { w.answer = n },
		} {
			if a, ok := strings.CutPrefix(name, prefix); ok {
				n, err := strconv.Atoi(a)
				if err != nil || n <= 0 {
					return g, false
				}
				w := expertWeights
				set(&w, n)
				g.w = &w
				return g, true
			}
		}
		// A u suffix: the race search's positions uncharged (raceFree);
		// an f suffix: fade1 at its horizon (raceLeaf).
		free := strings.HasSuffix(name, "u")
		base := strings.TrimSuffix(name, "u")
		fade := strings.HasSuffix(base, "f")
		base = strings.TrimSuffix(base, "f")
		var d, k, near, gate int
		if !parseRace(base, &d, &k, &near, &gate) {
			return g, false
		}
		w := expertWeights
		w.race, w.raceWalls, w.raceNear, w.raceGate, w.raceFree = d, k, near, gate, free
		if fade {
			w.raceLeaf = &qWeights{tempo: qStep / 2, walls: expertWeights.walls, fade: true, fadeSlack: 1}
		}
		g.w = &w
	}
	return g, true
}

// parseRace reads a race variant's name (see labExpert).
func parseRace(name string, d, k, near, gate *int) bool {
	rest, ok := strings.CutPrefix(name, "race")
	if !ok || rest == "" {
		return false
	}
	*k, *near, *gate = 3, 6, 0
	num := func() (int, bool) {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		v, err := strconv.Atoi(rest[:i])
		rest = rest[i:]
		return v, err == nil
	}
	var ok2 bool
	if *d, ok2 = num(); !ok2 || *d <= 0 {
		return false
	}
	for rest != "" {
		c := rest[0]
		rest = rest[1:]
		v, ok := num()
		if !ok {
			return false
		}
		switch c {
		case 'k':
			*k = v
		case 'n':
			*near = v
		case 'g':
			*gate = v
		default:
			return false
		}
	}
	return true
}
