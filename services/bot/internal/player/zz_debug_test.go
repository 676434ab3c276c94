package player

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/pkg/engine/quoridor"
)

func TestDebugGame(t *testing.T) {
	if os.Getenv("DEV_DEBUG") == "" {
		return
	}
	for seed := uint64(1); seed < 40; seed++ {
		var log []string
		pos, _ := games.New(engine.Quoridor, "", "")
		rng := rand.New(rand.NewPCG(seed, 2))
		lv := [2]Level{Hard, Medium}
		if seed%2 == 0 {
			lv = [2]Level{Medium, Hard}
		}
		for i := 0; !pos.Outcome().Over() && i < 200; i++ {
			l := lv[pos.ToMove().Index()]
			if i < 4 {
				l = Easy
			}
			c, err := Select(t.Context(), pos, l, time.Second, rng)
			if err != nil {
				t.Fatal(err)
			}
			q := newQState(pos.(quoridor.Position))
			log = append(log, fmt.Sprintf("%d %s %s eval %d depth %d dist w%d b%d walls %d/%d\n", i+1, l, c.Ply, c.Eval, c.Depth, q.dist(0), q.dist(1), q.pos.WallsLeft(engine.First), q.pos.WallsLeft(engine.Second)))
			pos, _ = pos.Play(c.Ply)
		}
		if w := pos.Outcome().Winner; lv[w.Index()] == Medium {
			for _, l := range log {
				fmt.Println(l)
			}
			fmt.Println(pos.Outcome())
			return
		}
	}
}
