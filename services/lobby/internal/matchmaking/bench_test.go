package matchmaking

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// BenchmarkPairing measures pairing throughput on one instance: each
// iteration enqueues 10,000 tickets (16 concurrent clients, ratings spread
// over 1000–2000) and runs waves until at most one ticket per queue is
// left. It reports tickets/s for the waves alone and end to end.
//
//	go test -run '^$' -bench Pairing -benchtime 3x -cpu 1 ./internal/matchmaking/
func BenchmarkPairing(b *testing.B) {
	rdb, prefix := testenv.Redis(b)
	const n = 10000
	var waveTime, totalTime time.Duration
	var tickets int
	iter := 0
	for b.Loop() {
		iter++
		m, _ := newMM(b, rdb, prefix+string(rune('a'+iter%26))+lobby.NewID(""), Config{TicketTTL: time.Hour})
		ctx := b.Context()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Go(func() {
				for i := w; i < n; i += 16 {
					if _, err := m.Enqueue(ctx, ratedQ, player(1000+rand.Float64()*1000)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		waveStart := time.Now()
		paired := 0
		for {
			st, err := m.Wave(ctx)
			if err != nil {
				b.Fatal(err)
			}
			paired += 2 * st.Pairs
			if st.Pairs == 0 {
				break
			}
		}
		waveTime += time.Since(waveStart)
		totalTime += time.Since(start)
		tickets += paired
		if paired < n-50 { // a few may be left whose neighbours are all out of the window
			b.Fatalf("paired %d of %d", paired, n)
		}
	}
	b.ReportMetric(float64(tickets)/waveTime.Seconds(), "paired-tickets/s(waves)")
	b.ReportMetric(float64(tickets)/totalTime.Seconds(), "tickets/s(enqueue+pair)")
}

// BenchmarkMatchLatency measures, on one instance running its waves with a
// background of 1,000 waiting tickets nobody fits, how long after the
// second ticket of a compatible pair is enqueued its owner's Watch returns
// the match. It reports p50 and p99 over 200 pairs per iteration.
//
//	go test -run '^$' -bench MatchLatency -benchtime 1x -cpu 1 ./internal/matchmaking/
func BenchmarkMatchLatency(b *testing.B) {
	rdb, prefix := testenv.Redis(b)
	m, _ := newMM(b, rdb, prefix, Config{TicketTTL: time.Hour})
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for i := range 1000 {
		// Background tickets 1000 points apart from each other and from the
		// pairs: they are read by every wave but never paired.
		if _, err := m.Enqueue(ctx, ratedQ, player(10000+float64(i)*1000)); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	for b.Loop() {
		for range 200 {
			first, err := m.Enqueue(ctx, ratedQ, player(1500))
			if err != nil {
				b.Fatal(err)
			}
			go func() { _, _ = m.Watch(ctx, first, false, func(Update) error { return nil }) }()
			second, err := m.Enqueue(ctx, ratedQ, player(1550))
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			res, err := m.Watch(ctx, second, false, func(Update) error { return nil })
			if err != nil || res == nil {
				b.Fatalf("watch: %v", err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
