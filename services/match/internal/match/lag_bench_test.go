package match_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// BenchmarkFlagAccuracy measures how much clock a network delay wrongly
// charges, with and without lag compensation: a player who always thinks
// exactly 1 s on a 15 s clock (no increment), behind a link that delays
// every message by 0, 100 or 300 ms each way, against an opponent who
// answers at once. The delay is injected in the service's clock (the
// test's), through the real Service and Store: each of the player's plies
// reaches the server 1 s + 2 × delay after the turn started (the
// opponent's ply travels to the player, the player's ply back); with
// compensation a probe is answered during the turn, so its round trip is
// 2 × delay as well. Reported: the clock charged beyond the player's own
// thinking, per ply (ms-overcharged/ply), and the ply on which the flag
// fell (flag-ply; 15 with no delay at all: 14 plies of 1 s leave 1 s, the
// 15th finds nothing left).
//
//	go test -run '^$' -bench FlagAccuracy -benchtime 1x ./internal/match
func BenchmarkFlagAccuracy(b *testing.B) {
	for _, delay := range []time.Duration{0, 100 * time.Millisecond, 300 * time.Millisecond} {
		for _, comp := range []bool{false, true} {
			b.Run(fmt.Sprintf("delay=%dms/compensation=%v", delay.Milliseconds(), comp), func(b *testing.B) {
				e := newEnv(b, 1, redisstore.Options{}, match.Config{})
				var over, plies, flags float64
				for range b.N {
					o, n, flag := flagRun(e, delay, comp)
					over, plies, flags = over+float64(o), plies+float64(n), flags+float64(flag)
				}
				b.ReportMetric(over/plies, "ms-overcharged/ply")
				b.ReportMetric(flags/float64(b.N), "flag-ply")
			})
		}
	}
}

// flagRun plays one game as BenchmarkFlagAccuracy describes; it returns
// the clock charged beyond thinking over the player's plies that were
// accepted, their number, and the number of the player's ply on which the
// flag fell.
func flagRun(e *env, delay time.Duration, comp bool) (overMS int64, plies, flagPly int) {
	const think = time.Second
	ctx := e.t.Context()
	svc := e.svcs[0]
	st := e.create(svc, &match.TimeControl{BaseMS: 15_000})
	for _, seat := range []engine.Seat{engine.First, engine.Second} {
		if _, err := svc.Join(ctx, st.ID, seat); err != nil {
			e.t.Fatal(err)
		}
	}
	e.play(svc, st.ID) // the clocks start with the second ply
	player, _, _ := e.legal(svc, st.ID)
	for {
		seat, n, ply := e.legal(svc, st.ID)
		if seat != player {
			e.play(svc, st.ID) // the opponent answers at once
			continue
		}
		if comp {
			p, err := svc.SendProbe(ctx, st.ID, seat)
			if err != nil {
				e.t.Fatal(err)
			}
			e.clock.Advance(2 * delay)
			if err := svc.AnswerProbe(ctx, st.ID, seat, p); err != nil {
				e.t.Fatal(err)
			}
		} else {
			e.clock.Advance(2 * delay)
		}
		e.clock.Advance(think)
		ev, _, err := svc.SubmitPly(ctx, st.ID, seat, n, ply)
		if pe := (*match.PlyError)(nil); errors.As(err, &pe) && pe.Over {
			got, _, _ := svc.Get(ctx, st.ID)
			if got.Outcome.Reason != engine.ReasonTime {
				e.t.Fatalf("the game ended by %v before the flag fell", got.Outcome.Reason)
			}
			return overMS, plies, plies + 1
		}
		if err != nil {
			e.t.Fatal(err)
		}
		overMS += ev.Ply.ThinkMS - ev.Ply.LagMS - think.Milliseconds()
		plies++
	}
}
