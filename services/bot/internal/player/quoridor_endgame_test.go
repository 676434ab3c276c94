package player

import (
	"math/rand/v2"
	"testing"

	"tabuleiro.dev/pkg/engine/quoridor"
)

// TestWallEndgamePlayoutRemembered plays each race out from every position
// along it twice: from an empty memory, and with the later positions'
// results already remembered (a playout then stops at the first one it
// meets). The results must agree, each a ply nearer the end than the
// position before it, with the side to move flipped.
func TestWallEndgamePlayoutRemembered(t *testing.T) {
	for _, enc := range []string{
		"standard e3 e5 6/0 - w 30 e5",            // white behind two steps, six walls
		"standard e2 e4 10/0 - w 30 e4",           // white behind four steps, ten walls
		"standard e7 e3 0/5 - w 30 e3",            // white two steps, black two and five walls
		"standard c4 f6 0/3 d5h,f5h,f4v b 31 f4v", // black to move, three walls
	} {
		p, err := quoridor.DecodePosition(enc)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		// The line: the playout's plies from p, one at a time.
		line := []qState{newQState(p)}
		for {
			c := line[len(line)-1]
			if _, ok := c.decidedRace(c.paths()); ok || c.pos.Outcome().Over() {
				break
			}
			var cost int64
			mover, dM, dO := c.paths()
			m, _, _, ok := c.playoutPly(mover, dM, dO, &cost)
			if !ok {
				t.Fatalf("%s: no ply at %s", enc, c.pos.Encode())
			}
			line = append(line, qGame{}.Play(&c, m))
			if len(line) > maxPlayout {
				t.Fatalf("%s: the playout does not end", enc)
			}
		}
		if line[len(line)-1].pos.Outcome().Over() {
			line = line[:len(line)-1] // the positions with a side to move
		}
		fresh := make([]raceResult, len(line))
		for i := range line {
			clear(endgames.e[:])
			fresh[i], _ = line[i].playout()
		}
		for i := 1; i < len(line); i++ {
			if a, b := fresh[i-1], fresh[i]; a.moverWins == b.moverWins || a.margin != b.margin || a.plies != b.plies+1 {
				t.Errorf("%s: ply %d: %+v then %+v: want the winner kept, the same margin, a ply less", enc, i, a, b)
			}
		}
		clear(endgames.e[:])
		for i := len(line) - 1; i >= 0; i-- {
			r, cost := line[i].playout()
			if r != fresh[i] {
				t.Errorf("%s: ply %d remembered: %+v, fresh %+v", enc, i, r, fresh[i])
			}
			// Its own position, at most one best wall (remembered too),
			// and the next position.
			if i < len(line)-1 && cost > 3 {
				t.Errorf("%s: ply %d: %d positions with the next one remembered, want at most 3", enc, i, cost)
			}
		}
		t.Logf("%s: %d plies, the side to move %s by %d", enc, fresh[0].plies, map[bool]string{true: "wins", false: "loses"}[fresh[0].moverWins], fresh[0].margin)
	}
}

// TestWallEndgamePlayoutPliesLegal plays wall endgames out from the
// positions of random games (one side spending its walls, the other
// keeping them) and checks every ply of every playout with the rules (Q3:
// a wall leaves both pawns a path), the paths each ply carries on with
// the ones measured, and that the playout ends.
func TestWallEndgamePlayoutPliesLegal(t *testing.T) {
	for _, pairs := range []bool{false, true} {
		t.Run(map[bool]string{false: "single walls", true: "pairs"}[pairs], func(t *testing.T) {
			old := endgamePairs
			endgamePairs = pairs
			defer func() { endgamePairs = old }()
			testWallEndgamePlayoutPliesLegal(t)
		})
	}
}

func testWallEndgamePlayoutPliesLegal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, plies, walls := 0, 0, 0
	for g := range 200 {
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for !p.Outcome().Over() && p.Plies() < 200 {
			s := newQState(p)
			me := sideOfSeat(p.ToMove())
			wMe, wOpp := p.WallsLeft(p.ToMove()), p.WallsLeft(p.ToMove().Other())
			if (wMe == 0) != (wOpp == 0) {
				checked++
				c := s
				for n := 0; ; n++ {
					if _, ok := c.decidedRace(c.paths()); ok {
						break
					}
					if n == maxPlayout {
						t.Fatalf("%s: the playout does not end", p.Encode())
					}
					var cost int64
					mover, dM, dO := c.paths()
					m, dMAfter, dOAfter, ok := c.playoutPly(mover, dM, dO, &cost)
					if !ok {
						break
					}
					next, err := c.pos.PlayMove(m)
					if err != nil {
						t.Fatalf("%s: the playout's ply %s at %s: %v", p.Encode(), m, c.pos.Encode(), err)
					}
					c = qGame{}.Play(&c, m)
					plies++
					walls += b2i(m.IsWall())
					// The paths the ply carries on are the ones measured.
					if got, want := [2]int{dMAfter, dOAfter}, [2]int{c.dist(mover), c.dist(1 - mover)}; got != want {
						t.Fatalf("%s: after the playout's ply %s the paths are %v, measured %v", p.Encode(), m, got, want)
					}
					if next.Outcome().Over() {
						break
					}
				}
			}
			// The side g%2 spends its walls: the wall of largest race
			// gain when one gains (or, in every third game, at random),
			// else its step. The other mostly steps along its shortest
			// path and keeps its walls, so that it falls behind holding
			// them: the playouts it walls in.
			legal := p.LegalMoves(nil)
			var m quoridor.Move
			var buf [2]quoridor.Move
			race := s.raceMoves(me, s.dist(me), s.dist(1-me), 1, buf[:0])
			switch {
			case me == g%2 && wMe > 0 && g%3 == 0:
				m = legal[rng.IntN(len(legal))]
			case me == g%2 && len(race) > 1:
				m = race[1]
			default:
				m = race[0]
				if rng.IntN(3) == 0 {
					for m = legal[rng.IntN(len(legal))]; m.IsWall(); m = legal[rng.IntN(len(legal))] {
					}
				}
			}
			if p, err = p.PlayMove(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 100 || plies < 1000 || walls < 100 {
		t.Fatalf("%d wall endgames checked, %d playout plies, %d of them walls: want 100, 1000 and 100 or more", checked, plies, walls)
	}
	t.Logf("%d wall endgames, %d playout plies, %d of them walls", checked, plies, walls)
}
