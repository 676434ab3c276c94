package view_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/view"
)

// play plays notations on a new position of g/variant and returns the
// state (plies only) and the position after them.
func play(t *testing.T, g engine.Game, variant, layout string, notations ...string) (*match.State, engine.Position) {
	t.Helper()
	pos, err := games.New(g, variant, layout)
	if err != nil {
		t.Fatal(err)
	}
	st := &match.State{ID: "m", Game: g, Variant: variant, Players: 2, Layout: layout, Status: match.StatusInProgress}
	for i, n := range notations {
		seat := pos.ToMove()
		p, err := pos.ParsePly(n)
		if err != nil {
			t.Fatalf("ply %d %q: %v", i+1, n, err)
		}
		if pos, err = pos.Play(p); err != nil {
			t.Fatalf("ply %d %q: %v", i+1, n, err)
		}
		st.Plies = append(st.Plies, match.PlyRecord{Number: i + 1, Seat: seat, Notation: p.String(), ClockMS: -1})
	}
	return st, pos
}

// TestCornersBoard checks the structured Corners board (C1, C2, C5, C6.3).
func TestCornersBoard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                     string
		variant                  string
		plies                    []string
		wantSize                 int32
		wantPieces               int
		wantHome, wantTarget     []string // first seat's, sorted
		wantDiagonal             bool
		wantMove, wantDeadline   int32
		wantLimit                int32
		wantLastPath             []string
		wantFirstHome, wantInTgt int32
	}{
		{
			name: "classic-3x3 start (C2)", variant: "classic-3x3", wantSize: 8, wantPieces: 9,
			wantHome:   []string{"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"},
			wantTarget: []string{"f6", "f7", "f8", "g6", "g7", "g8", "h6", "h7", "h8"},
			wantMove:   1, wantDeadline: 40, wantLimit: 80, wantFirstHome: 9,
		},
		{
			name: "classic-3x3 after a step and a reply (C3.1)", variant: "classic-3x3", plies: []string{"c3-d3", "f6-e6"},
			wantSize: 8, wantPieces: 9,
			wantHome:   []string{"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"},
			wantTarget: []string{"f6", "f7", "f8", "g6", "g7", "g8", "h6", "h7", "h8"},
			wantMove:   2, wantDeadline: 40, wantLimit: 80, wantLastPath: []string{"f6", "e6"}, wantFirstHome: 8,
		},
		{
			name: "diagonal-3x3 jump (C2, C3.2)", variant: "diagonal-3x3", plies: []string{"c1-d2", "f6-e5", "b1-d3"},
			wantSize: 8, wantPieces: 9, wantDiagonal: true,
			wantHome:   []string{"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"},
			wantTarget: []string{"f6", "f7", "f8", "g6", "g7", "g8", "h6", "h7", "h8"},
			wantMove:   2, wantDeadline: 30, wantLimit: 80, wantLastPath: []string{"b1", "d3"}, wantFirstHome: 7,
		},
		{
			name: "halma-16x16 start (C2)", variant: "halma-16x16", wantSize: 16, wantPieces: 19, wantDiagonal: true,
			wantMove: 1, wantDeadline: 60, wantLimit: 200, wantFirstHome: 19,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, pos := play(t, engine.Corners, tt.variant, "", tt.plies...)
			gv := view.GameView(st, pos, engine.NoSeat)
			b := gv.GetCorners()
			if b == nil {
				t.Fatalf("no corners board in %v", gv)
			}
			sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
			if b.GetSize() != tt.wantSize || len(b.GetFirst().GetPieces()) != tt.wantPieces || len(b.GetSecond().GetPieces()) != tt.wantPieces {
				t.Errorf("size %d, pieces %d/%d; want %d, %d", b.GetSize(), len(b.GetFirst().GetPieces()), len(b.GetSecond().GetPieces()), tt.wantSize, tt.wantPieces)
			}
			if tt.wantHome != nil && (!slices.Equal(sorted(b.GetFirst().GetHome()), tt.wantHome) || !slices.Equal(sorted(b.GetFirst().GetTarget()), tt.wantTarget)) {
				t.Errorf("first home %v target %v; want %v %v", b.GetFirst().GetHome(), b.GetFirst().GetTarget(), tt.wantHome, tt.wantTarget)
			}
			if !slices.Equal(sorted(b.GetSecond().GetHome()), sorted(b.GetFirst().GetTarget())) || !slices.Equal(sorted(b.GetSecond().GetTarget()), sorted(b.GetFirst().GetHome())) {
				t.Errorf("second's home/target are not first's target/home")
			}
			if b.GetDiagonal() != tt.wantDiagonal || b.GetBlockingAllowed() != tt.wantDiagonal {
				t.Errorf("diagonal %v blocking %v; want %v", b.GetDiagonal(), b.GetBlockingAllowed(), tt.wantDiagonal)
			}
			if b.GetMoveNumber() != tt.wantMove || b.GetDeadlineMove() != tt.wantDeadline || b.GetMoveLimit() != tt.wantLimit {
				t.Errorf("move %d deadline %d limit %d; want %d %d %d", b.GetMoveNumber(), b.GetDeadlineMove(), b.GetMoveLimit(), tt.wantMove, tt.wantDeadline, tt.wantLimit)
			}
			if !slices.Equal(b.GetLastPath(), tt.wantLastPath) {
				t.Errorf("last path %v, want %v", b.GetLastPath(), tt.wantLastPath)
			}
			if b.GetFirst().GetPiecesAtHome() != tt.wantFirstHome || b.GetFirst().GetPiecesInTarget() != 0 {
				t.Errorf("first at home %d in target %d; want %d 0", b.GetFirst().GetPiecesAtHome(), b.GetFirst().GetPiecesInTarget(), tt.wantFirstHome)
			}
		})
	}
}

// TestBanqiRevealsInSnapshotsAndEvents plays random Banqi games and checks
// that every reveal ply carries the piece it revealed (the layout's piece
// on that square), both in a snapshot's ply list and in the ply's event,
// and that no other ply carries one (B6).
func TestBanqiRevealsInSnapshotsAndEvents(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	for game := range 5 {
		var seed [32]byte
		for i := range seed {
			seed[i] = byte(r.IntN(256))
		}
		layout := banqi.LayoutFromSeed(seed)
		pos, err := games.New(engine.Banqi, "standard", layout.String())
		if err != nil {
			t.Fatal(err)
		}
		var notations []string
		for len(notations) < 60 && !pos.Outcome().Over() {
			l := pos.Legal()
			p := l[r.IntN(len(l))]
			notations = append(notations, p.String())
			if pos, err = pos.Play(p); err != nil {
				t.Fatal(err)
			}
		}
		st, pos := play(t, engine.Banqi, "standard", layout.String(), notations...)
		want := func(i int) gamev1.BanqiPiece {
			n := st.Plies[i].Notation
			if strings.ContainsAny(n, "-x") {
				return gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED
			}
			sq, err := banqi.ParseSquare(n)
			if err != nil {
				t.Fatal(err)
			}
			return view.BanqiPiece(layout[sq])
		}
		snap := view.Match(st, pos, engine.First, 0)
		reveals := 0
		for i, p := range snap.GetPlies() {
			if p.GetRevealed() != want(i) {
				t.Fatalf("game %d snapshot ply %d %s: revealed %v, want %v", game, i+1, p.GetNotation(), p.GetRevealed(), want(i))
			}
			if want(i) != gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED {
				reveals++
			}
		}
		if reveals == 0 {
			t.Fatalf("game %d: no reveal among %d plies", game, len(notations))
		}
		for i := range st.Plies {
			at, atPos := play(t, engine.Banqi, "standard", layout.String(), notations[:i+1]...)
			ev := match.Event{MatchID: "m", Seq: int64(i + 1), Kind: match.EventPly, Plies: i + 1, Ply: &at.Plies[i]}
			for _, viewer := range []engine.Seat{engine.First, engine.Second, engine.NoSeat} {
				got := view.Event(ev, at, atPos, viewer).GetPlyPlayed()
				if got.GetPly().GetRevealed() != want(i) || got.GetView().GetLastPly().GetRevealed() != want(i) {
					t.Fatalf("game %d event of ply %d for %v: revealed %v / %v, want %v", game, i+1, viewer,
						got.GetPly().GetRevealed(), got.GetView().GetLastPly().GetRevealed(), want(i))
				}
			}
		}
	}
}

// TestQuoridorWalls checks that the board lists every wall on the board:
// in placement order with its placer when the state has its plies (Q3),
// and in the position's own order when it has none, as in a bot's request,
// whose wall count the bot checks against the 20 of Q1.
func TestQuoridorWalls(t *testing.T) {
	t.Parallel()
	st, pos := play(t, engine.Quoridor, "standard", "", "c3h", "e8", "a3v", "d8", "f5h")
	type wall struct {
		anchor string
		vert   bool
		by     gamev1.Seat
		ply    int32
	}
	walls := func(b *gamev1.QuoridorBoard) []wall {
		var out []wall
		for _, w := range b.GetWalls() {
			out = append(out, wall{w.GetAnchor(), w.GetOrientation() == gamev1.WallOrientation_WALL_ORIENTATION_VERTICAL, w.GetPlacedBy(), w.GetPlyNumber()})
		}
		return out
	}
	full := view.GameView(st, pos, engine.First).GetQuoridor()
	want := []wall{
		{"c3", false, gamev1.Seat_SEAT_FIRST, 1},
		{"a3", true, gamev1.Seat_SEAT_FIRST, 3},
		{"f5", false, gamev1.Seat_SEAT_FIRST, 5},
	}
	if got := walls(full); !slices.Equal(got, want) {
		t.Errorf("walls with plies = %v, want %v", got, want)
	}
	bare := view.GameViewOf(&match.State{ID: "m", Game: engine.Quoridor, Variant: "standard"}, pos.View(engine.Second), engine.Second).GetQuoridor()
	got := walls(bare)
	if len(got) != 3 {
		t.Fatalf("walls without plies = %v, want the 3 on the board", got)
	}
	for _, w := range got {
		if w.by != gamev1.Seat_SEAT_UNSPECIFIED || w.ply != 0 {
			t.Errorf("wall %v without plies names a placer", w)
		}
	}
	if n := len(got) + int(bare.GetFirst().GetWallsLeft()+bare.GetSecond().GetWallsLeft()); n != 20 {
		t.Errorf("walls placed + left = %d, want 20 (Q1)", n)
	}
}
