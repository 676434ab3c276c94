package corners

import (
	"math/rand/v2"
	"testing"
)

// midgame plays n plies of a seeded game from the start of variant, with
// the same advancing policy as FuzzRandomGame.
func midgame(b *testing.B, variant string, n int) Position {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	p := start(b, variant)
	for range n {
		bd := p.Board()
		next, err := p.PlayMove(pick(p, bd.LegalMoves(nil), rng))
		if err != nil {
			b.Fatal(err)
		}
		p = next
	}
	if p.Outcome().Over() {
		b.Fatalf("%s: game over after %d plies", variant, n)
	}
	return p
}

func benchLegal(b *testing.B, variant string, plies int) {
	p := midgame(b, variant, plies)
	bd := p.Board()
	buf := make([]Move, 0, 256)
	total := 0
	b.ReportAllocs()
	for b.Loop() {
		buf = bd.LegalMoves(buf[:0])
		total += len(buf)
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "plies/s")
	b.ReportMetric(float64(len(buf)), "plies/op")
}

// BenchmarkLegalMovesClassic3x3 generates the legal plies of a mid-game
// classic-3x3 position (C6.1's blocking check included).
func BenchmarkLegalMovesClassic3x3(b *testing.B) { benchLegal(b, "classic-3x3", 30) }

// BenchmarkLegalMovesHalma generates the legal plies of a mid-game
// halma-16x16 position.
func BenchmarkLegalMovesHalma(b *testing.B) { benchLegal(b, "halma-16x16", 60) }

// BenchmarkPlay plays one listed ply with every check (C3, C6.1, C6.2,
// C6.4).
func BenchmarkPlay(b *testing.B) {
	p := midgame(b, "classic-3x3", 30)
	bd := p.Board()
	m := bd.LegalMoves(nil)[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.PlayMove(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPerft3 counts classic-3x3's perft(3) from the start.
func BenchmarkPerft3(b *testing.B) {
	bd := start(b, "classic-3x3").Board()
	b.ReportAllocs()
	for b.Loop() {
		bd.Perft(3)
	}
}
