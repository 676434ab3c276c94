package matchserver_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
)

// chooser picks a ply from the legal ones for the view.
type chooser func(v engine.View, r *rand.Rand) string

// quoridorGreedy walks the pawn straight to its goal (Q4): the pawn move
// with the best rank, no walls, so a game takes a few dozen plies.
func quoridorGreedy(v engine.View, _ *rand.Rand) string {
	best, bestScore := "", -100
	for _, p := range v.Legal() {
		s := p.String()
		if strings.HasSuffix(s, "h") || strings.HasSuffix(s, "v") {
			continue
		}
		rank, _ := strconv.Atoi(s[1:])
		score := rank
		if v.ToMove() == engine.Second {
			score = -rank
		}
		if score > bestScore {
			best, bestScore = s, score
		}
	}
	return best
}

func firstPly(v engine.View, _ *rand.Rand) string { return v.Legal()[0].String() }

// checkCornersBoards checks that every ply event of a Corners game carries
// the structured board: the last path ends where the ply did, the move
// number follows the plies (C4), and the pieces never change in number.
func checkCornersBoards(t *testing.T, streams [3]*stream, plies int) {
	t.Helper()
	for si, s := range streams {
		seen := 0
		for _, m := range s.all {
			pp := event(m).GetPlyPlayed()
			if pp == nil {
				continue
			}
			seen++
			b := pp.GetView().GetCorners()
			n := int(pp.GetPly().GetNumber())
			path := strings.Split(pp.GetPly().GetNotation(), "-")
			if b == nil || b.GetSize() != 8 || len(b.GetFirst().GetPieces()) != 9 || len(b.GetSecond().GetPieces()) != 9 ||
				strings.Join(b.GetLastPath(), "-") != strings.Join(path, "-") || b.GetMoveLimit() != 80 || b.GetDeadlineMove() != 40 {
				t.Fatalf("stream %d ply %d: corners board %v", si, n, b)
			}
			if over := pp.GetView().GetOutcome().GetResult() != gamev1.Result_RESULT_ONGOING; !over && int(b.GetMoveNumber()) != n/2+1 {
				t.Fatalf("stream %d ply %d: move number %d, want %d", si, n, b.GetMoveNumber(), n/2+1)
			}
		}
		if seen != plies {
			t.Fatalf("stream %d saw %d ply events, want %d", si, seen, plies)
		}
	}
}

func randomPly(v engine.View, r *rand.Rand) string {
	l := v.Legal()
	return l[r.IntN(len(l))].String()
}

// playOut plays match id to its end through two Play streams on instance
// 0 and a spectator's Watch on the last instance; it returns every
// stream and the number of plies.
func playOut(t *testing.T, c *cluster, g engine.Game, id string, choose chooser) ([3]*stream, int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	players := [2]*stream{c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)}
	spectator := c.watch(len(c.conns)-1, id)
	var views [2]*gamev1.GameView
	for i, p := range players {
		views[i] = snapshot(p.until("snapshot", func(m any) bool { return snapshot(m) != nil })).GetView()
	}
	n := 0
	for views[0].GetOutcome().GetResult() == gamev1.Result_RESULT_ONGOING {
		mover := int(views[0].GetToMove()) - 1
		v, err := games.DecodeView(g, views[mover].GetEncoding())
		if err != nil {
			t.Fatalf("decode view: %v", err)
		}
		n++
		players[mover].submit(int32(n), choose(v, r))
		for i, p := range players {
			ev := event(p.until("ply "+strconv.Itoa(n), func(m any) bool {
				if rj := m.(*matchv1.PlayResponse).GetPlyRejected(); rj != nil {
					t.Fatalf("ply %d rejected: %v", n, rj)
				}
				return event(m).GetPlyPlayed().GetPly().GetNumber() == int32(n)
			}))
			views[i] = ev.GetPlyPlayed().GetView()
		}
		if n > 2000 {
			t.Fatal("game did not end in 2000 plies")
		}
	}
	for _, p := range players {
		p.ended()
	}
	spectator.ended()
	return [3]*stream{players[0], players[1], spectator}, n
}

func TestWholeGamesThroughTheAPI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		game    gamev1.Game
		variant string
		g       engine.Game
		choose  chooser
	}{
		{"quoridor", gamev1.Game_GAME_QUORIDOR, "", engine.Quoridor, quoridorGreedy},
		{"banqi", gamev1.Game_GAME_BANQI, "", engine.Banqi, randomPly},
		// Both seats play their first legal ply until the game ends (at
		// the latest by C6.3's move limit).
		{"corners", gamev1.Game_GAME_CORNERS, "classic-3x3", engine.Corners, firstPly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, 2, match.Config{}, nil)
			id := c.create(&matchv1.CreateMatchRequest{Game: tt.game, Variant: tt.variant, TimeControl: &gamev1.TimeControl{BaseMs: 600_000, IncrementMs: 1000}})
			streams, n := playOut(t, c, tt.g, id, tt.choose)
			if tt.g == engine.Corners {
				checkCornersBoards(t, streams, n)
			}
			var count int
			testenv.Eventually(t, 10*time.Second, "the game's record", func() bool {
				err := c.db.QueryRowContext(t.Context(), "SELECT ply_count FROM games WHERE game_id = $1", id).Scan(&count)
				return err == nil
			})
			if count != n {
				t.Fatalf("record has %d plies, want %d", count, n)
			}
		})
	}
}

// TestBanqiHiddenPiecesNeverLeave inspects every message sent to both
// seats and a spectator during whole Banqi games (B6): no face-down
// identity, no layout and no seed before the end, and all three receive
// the same board for every ply.
func TestBanqiHiddenPiecesNeverLeave(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, match.Config{}, nil)
	for range 3 {
		id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_BANQI})
		streams, _ := playOut(t, c, engine.Banqi, id, randomPly)
		var layout, seed, commitment string
		boards := map[int64][]*gamev1.BanqiBoard{}
		for si, s := range streams {
			for _, m := range s.all {
				ev := event(m)
				if end := ev.GetGameEnded(); end != nil {
					layout, seed = end.GetLayout(), end.GetSeed()
				}
			}
			if len(layout) != banqi.NumSquares || seed == "" {
				t.Fatalf("stream %d: game ended without layout %q and seed %q", si, layout, seed)
			}
			for _, m := range s.all {
				ev := event(m)
				if ev.GetGameEnded() != nil {
					break
				}
				b, err := proto.Marshal(m.(proto.Message))
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte(layout)) || bytes.Contains(b, []byte(seed)) {
					t.Fatalf("stream %d: a message before the end carries the layout or seed", si)
				}
				var gv *gamev1.GameView
				if snap := snapshot(m); snap != nil {
					gv = snap.GetView()
					if snap.GetLayout() != "" || snap.GetSeed() != "" {
						t.Fatalf("stream %d: snapshot reveals the layout", si)
					}
				} else if pp := ev.GetPlyPlayed(); pp != nil {
					gv = pp.GetView()
				}
				if gv == nil {
					continue
				}
				board := gv.GetBanqi()
				if commitment == "" {
					commitment = board.GetSeedCommitment()
				}
				if board.GetSeedCommitment() != commitment || commitment == "" {
					t.Fatalf("stream %d: seed commitment %q, want %q", si, board.GetSeedCommitment(), commitment)
				}
				faceDown := 0
				for _, cell := range board.GetCells() {
					if cell.GetFaceDown() != nil {
						faceDown++
					}
				}
				counted := 0
				for _, pc := range board.GetFaceDownCounts() {
					counted += int(pc.GetCount())
				}
				if faceDown != counted {
					t.Fatalf("stream %d: %d face-down cells but counts say %d", si, faceDown, counted)
				}
				if _, err := banqi.DecodeView(gv.GetEncoding()); err != nil {
					t.Fatalf("stream %d: encoding is not a view: %v", si, err)
				}
				if ev != nil {
					boards[ev.GetSeq()] = append(boards[ev.GetSeq()], board)
				}
			}
		}
		for seq, bs := range boards {
			for _, b := range bs[1:] {
				if !proto.Equal(b, bs[0]) {
					t.Fatalf("event %d: receivers saw different boards", seq)
				}
			}
		}
		var s [32]byte
		if _, err := hexDecode(seed, s[:]); err != nil || banqi.SeedCommitment(s) != commitment || banqi.LayoutFromSeed(s).String() != layout {
			t.Fatalf("seed %s does not match commitment %s and layout %s", seed, commitment, layout)
		}
	}
}
