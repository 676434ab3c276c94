package quoridor

import (
	"testing"
	"time"
)

// reportCPU reports the CPU time per iteration since t0 as cpu-ns/op: on
// a shared, loaded machine the wall-clock ns/op counts the time the
// benchmark waited for a core, its CPU time far less so.
func reportCPU(b *testing.B, t0 time.Duration) {
	if d := cpuTime() - t0; t0 > 0 && d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// benchPositions returns the start and a mid-game position: quoridor-001
// after 21 plies, with walls on the board and walls left to both players.
func benchPositions(b *testing.B) (start, mid Position) {
	b.Helper()
	start, err := NewPosition(Standard, "")
	if err != nil {
		b.Fatal(err)
	}
	mid, err = DecodePosition("standard f3 d7 4/5 d3h,f4h,h4h,e5h,a6h,c6h,d7h,e3v,g3v,d5v,e6v b 21 f3")
	if err != nil {
		b.Fatal(err)
	}
	return start, mid
}

func BenchmarkLegalMoves(b *testing.B) {
	start, mid := benchPositions(b)
	for _, bc := range []struct {
		name string
		p    Position
	}{{"start", start}, {"midgame", mid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf [maxMoves]Move
			t0 := cpuTime()
			for b.Loop() {
				_ = bc.p.LegalMoves(buf[:0])
			}
			reportCPU(b, t0)
		})
	}
}

func BenchmarkCountLegal(b *testing.B) {
	start, mid := benchPositions(b)
	for _, bc := range []struct {
		name string
		p    Position
	}{{"start", start}, {"midgame", mid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			t0 := cpuTime()
			for b.Loop() {
				_ = bc.p.CountLegal()
			}
			reportCPU(b, t0)
		})
	}
}

// BenchmarkPlay plays a validated wall (a full path check for both pawns)
// and a validated pawn move.
func BenchmarkPlay(b *testing.B) {
	start, mid := benchPositions(b)
	wall, err := ParseMove("e3h")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("wall", func(b *testing.B) {
		b.ReportAllocs()
		t0 := cpuTime()
		for b.Loop() {
			if _, err := start.PlayMove(wall); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, t0)
	})
	step := mid.LegalMoves(nil)[0] // a pawn move: pawn moves come first
	b.Run("pawn", func(b *testing.B) {
		b.ReportAllocs()
		t0 := cpuTime()
		for b.Loop() {
			if _, err := mid.PlayMove(step); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, t0)
	})
}

func BenchmarkPerft3(b *testing.B) {
	start, _ := benchPositions(b)
	b.ReportAllocs()
	t0 := cpuTime()
	for b.Loop() {
		if n := start.Perft(3); n != 2062264 {
			b.Fatalf("Perft(3) = %d", n)
		}
	}
	reportCPU(b, t0)
}

// BenchmarkPerft4 takes about a second per iteration: run it with
// -benchtime 1x.
func BenchmarkPerft4(b *testing.B) {
	start, _ := benchPositions(b)
	b.ReportAllocs()
	t0 := cpuTime()
	for b.Loop() {
		if n := start.Perft(4); n != 247569030 {
			b.Fatalf("Perft(4) = %d", n)
		}
	}
	reportCPU(b, t0)
}

// BenchmarkPerft3Mid counts perft(3) from a mid-game position of
// testdata/perft.txt (quoridor-001 after 20 plies).
func BenchmarkPerft3Mid(b *testing.B) {
	p, err := DecodePosition("standard f4 d7 4/5 d3h,f4h,h4h,e5h,a6h,c6h,d7h,e3v,g3v,d5v,e6v w 20 d7")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	t0 := cpuTime()
	for b.Loop() {
		if n := p.Perft(3); n != 516302 {
			b.Fatalf("Perft(3) = %d", n)
		}
	}
	reportCPU(b, t0)
}

// BenchmarkBoardLegalMoves lists the legal plies of the mid-game position
// on a board, as Perft does.
func BenchmarkBoardLegalMoves(b *testing.B) {
	_, mid := benchPositions(b)
	bd := newBoard(mid)
	var buf [maxMoves + 8]Move
	want := mid.LegalMoves(nil)
	if got := bd.legalMoves(buf[:0]); len(got) != len(want) {
		b.Fatalf("board lists %d plies, want %d", len(got), len(want))
	}
	b.ReportAllocs()
	t0 := cpuTime()
	for b.Loop() {
		_ = bd.legalMoves(buf[:0])
	}
	reportCPU(b, t0)
}
