package review

import (
	"context"
	"slices"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/corners"
)

// A quality case is a position whose better plies are known (good), with
// a ply known to be weaker (weak): the review must mark weak and propose
// one of good.
type qualityCase struct {
	v    engine.View
	good []string
	weak string
}

// qualityNodes is the budget of the quality sets: the default.
const qualityNodes = DefaultNodes

// positions scans the positions of medium self-play games of g (seeds
// from 1) with find until it has n cases or has tried maxGames games.
func positions(t *testing.T, g engine.Game, variant string, n, maxGames int, find func(v engine.View) (qualityCase, bool)) []qualityCase {
	t.Helper()
	var out []qualityCase
	for seed := uint64(1); seed <= uint64(maxGames) && len(out) < n; seed++ {
		views, err := Views(play(t, g, variant, 200, seed, false))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range views {
			if v.Outcome().Over() {
				continue
			}
			if c, ok := find(v); ok {
				out = append(out, c)
				break // one a game: different games
			}
		}
	}
	return out
}

// runQuality reviews the weak ply of every case and reports the share of
// cases where the weak ply is marked (a mistake or a blunder) and a good
// ply is proposed; it fails below wantFound of the second, or below
// wantMarked of the first (0 where the weak ply does not always lose:
// the win or the capture may still be there a ply later).
func runQuality(t *testing.T, g engine.Game, cases []qualityCase, wantFound, wantMarked float64) {
	t.Helper()
	if len(cases) < 5 {
		t.Fatalf("only %d positions found", len(cases))
	}
	marked, found := 0, 0
	for i, c := range cases {
		p, err := Judge(context.Background(), g, c.v, c.weak, qualityNodes)
		if err != nil {
			t.Fatal(err)
		}
		if p.Mark >= Mistake {
			marked++
		}
		if slices.Contains(c.good, p.Best) {
			found++
		} else {
			t.Logf("case %d: proposed %s, known best %v; weak %s %s (drop %.1f)\n%s", i, p.Best, c.good, c.weak, p.Mark, p.Drop, c.v.Render())
		}
	}
	n := float64(len(cases))
	t.Logf("%s: %d positions; weak ply marked in %d (%.0f%%), a known best proposed in %d (%.0f%%)", g, len(cases), marked, 100*float64(marked)/n, found, 100*float64(found)/n)
	if float64(marked)/n < wantMarked || float64(found)/n < wantFound {
		t.Errorf("marked %.0f%%, found %.0f%%, want at least %.0f%% and %.0f%%", 100*float64(marked)/n, 100*float64(found)/n, 100*wantMarked, 100*wantFound)
	}
}

// winsAtOnce reports whether the side to move of v has a ply that wins.
func winsAtOnce(v engine.Position) bool {
	for _, p := range v.Legal() {
		next, err := v.Play(p)
		if err == nil && next.Outcome().Result == engine.Win && next.Outcome().Winner == v.ToMove() {
			return true
		}
	}
	return false
}

// Quoridor: the opponent wins next ply unless the mover stops it (with a
// wall, or a pawn in the way); the weak ply is a pawn step that lets it
// win, the good ones every ply after which it cannot win at once.
func TestQualityQuoridorMustBlock(t *testing.T) {
	cases := positions(t, engine.Quoridor, "standard", 12, 60, func(v engine.View) (qualityCase, bool) {
		pos := v.(engine.Position)
		if winsAtOnce(pos) {
			return qualityCase{}, false
		}
		c := qualityCase{v: v}
		for _, p := range pos.Legal() {
			next, _ := pos.Play(p)
			if next.Outcome().Over() {
				continue
			}
			if winsAtOnce(next) {
				if c.weak == "" && len(p.String()) == 2 { // a pawn step
					c.weak = p.String()
				}
			} else {
				c.good = append(c.good, p.String())
			}
		}
		return c, c.weak != "" && len(c.good) > 0
	})
	runQuality(t, engine.Quoridor, cases, 0.9, 0.9)
}

// Corners: the mover can win at once (its last piece home, often by a
// jump chain); the good plies are the winning ones, the weak one the first
// other ply (which often wins a ply later all the same: its mark is
// reported, not required).
func TestQualityCornersWinningPly(t *testing.T) {
	jumps := 0
	cases := positions(t, engine.Corners, "classic-3x3", 12, 40, func(v engine.View) (qualityCase, bool) {
		pos := v.(engine.Position)
		c := qualityCase{v: v}
		jump := false
		for _, p := range pos.Legal() {
			next, _ := pos.Play(p)
			if o := next.Outcome(); o.Result == engine.Win && o.Winner == pos.ToMove() {
				c.good = append(c.good, p.String())
				if m, ok := p.(corners.Move); ok && m.IsJump() {
					jump = true
				}
			} else if c.weak == "" {
				c.weak = p.String()
			}
		}
		if jump && len(c.good) > 0 && c.weak != "" {
			jumps++
		}
		return c, len(c.good) > 0 && c.weak != ""
	})
	t.Logf("%d of %d positions are won by a jump chain", jumps, len(cases))
	runQuality(t, engine.Corners, cases, 0.9, 0)
}

// Banqi: the mover can capture the opponent's general; the good plies are
// those captures, the weak one a step (or a reveal) that captures nothing
// (the general often cannot escape: its mark is reported, not required).
func TestQualityBanqiCaptureGeneral(t *testing.T) {
	cases := positions(t, engine.Banqi, "standard", 12, 60, func(v engine.View) (qualityCase, bool) {
		bv := v.(banqi.View)
		mine := bv.Colour(bv.ToMove())
		c := qualityCase{v: v}
		var reveal string
		for _, m := range bv.LegalMoves(nil) {
			switch m.Kind() {
			case banqi.KindCapture:
				pc := bv.Cell(m.To()).Piece()
				if pc.Kind() == banqi.General && pc.Colour() != mine {
					c.good = append(c.good, m.String())
				}
			case banqi.KindStep:
				if c.weak == "" {
					c.weak = m.String()
				}
			case banqi.KindReveal:
				if reveal == "" {
					reveal = m.String()
				}
			}
		}
		if c.weak == "" {
			c.weak = reveal
		}
		return c, len(c.good) > 0 && c.weak != ""
	})
	runQuality(t, engine.Banqi, cases, 0.8, 0)
}
