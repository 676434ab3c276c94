package scaletest

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(floorServeEnv); addr != "" { // BenchmarkFloor's server
		if err := serveFloor(addr); err != nil {
			fmt.Fprintln(os.Stderr, "floor server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// seatLogs collects the load run's seat logs by match.
type seatLogs struct {
	mu      sync.Mutex
	byMatch map[string][]load.SeatLog
}

func newSeatLogs() *seatLogs { return &seatLogs{byMatch: map[string][]load.SeatLog{}} }

func (s *seatLogs) add(l load.SeatLog) {
	s.mu.Lock()
	s.byMatch[l.MatchID] = append(s.byMatch[l.MatchID], l)
	s.mu.Unlock()
}

// gameCheck is what checkGames found.
type gameCheck struct {
	games, rejoined int
	worstClock      time.Duration
	clocks          int            // clock readings checked
	outcomes        map[string]int // by reason
}

// checkGames asserts, for every game both seats of which were logged, that
// both seats saw the same plies numbered 1..n exactly once each, that each
// ply is what its mover sent, that the game ended as the board decided
// (DESIGN.md principles 2 and 3), and that every clock after a ply is
// what the ply timestamps and its lag credit say, within clockTolerance.
func checkGames(t *testing.T, s *seatLogs, inc time.Duration, clockTolerance time.Duration) gameCheck {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	gc := gameCheck{outcomes: map[string]int{}}
	for id, seats := range s.byMatch {
		if len(seats) != 2 {
			t.Errorf("match %s: %d seat logs, want 2", id, len(seats))
			continue
		}
		gc.games++
		if seats[0].Rejoins+seats[1].Rejoins > 0 {
			gc.rejoined++
		}
		for _, l := range seats {
			if l.Err != nil || l.Outcome == nil {
				t.Errorf("match %s seat %v: did not end: %v", id, l.Seat, l.Err)
			}
			for i, p := range l.Plies {
				if p.GetNumber() != int32(i+1) {
					t.Errorf("match %s seat %v: ply %d has number %d (lost or duplicated)", id, l.Seat, i+1, p.GetNumber())
					break
				}
			}
		}
		a, b := seats[0], seats[1]
		if len(a.Plies) != len(b.Plies) {
			t.Errorf("match %s: seats saw %d and %d plies", id, len(a.Plies), len(b.Plies))
			continue
		}
		sent := map[gamev1.Seat]map[int32]string{a.Seat: a.Sent, b.Seat: b.Sent}
		for i := range a.Plies {
			pa, pb := a.Plies[i], b.Plies[i]
			if pa.GetNotation() != pb.GetNotation() || pa.GetSeat() != pb.GetSeat() {
				t.Errorf("match %s ply %d: seats saw %s and %s", id, i+1, pa.GetNotation(), pb.GetNotation())
			}
			if want := sent[pa.GetSeat()][pa.GetNumber()]; want != pa.GetNotation() {
				t.Errorf("match %s ply %d: played %s, the mover sent %q", id, i+1, pa.GetNotation(), want)
			}
		}
		if a.Outcome != nil {
			r := a.Outcome.GetReason().String()
			gc.outcomes[r]++
			if rs := a.Outcome.GetReason(); rs != gamev1.Reason_REASON_GOAL && rs != gamev1.Reason_REASON_REPETITION {
				t.Errorf("match %s ended by %s, want the board's goal", id, r)
			}
		}
		// Clocks: after ply n the mover has what it had after ply n-2,
		// less the time since ply n-1, plus the increment and the ply's
		// lag compensation (lag_ms, the credit the server gave it).
		for i := 2; i < len(a.Plies); i++ {
			p, prev, prev2 := a.Plies[i], a.Plies[i-1], a.Plies[i-2]
			if p.ClockRemainingMs == nil || prev2.ClockRemainingMs == nil {
				continue
			}
			think := p.GetPlayedAt().AsTime().Sub(prev.GetPlayedAt().AsTime())
			want := time.Duration(prev2.GetClockRemainingMs())*time.Millisecond - think + inc + time.Duration(p.GetLagMs())*time.Millisecond
			got := time.Duration(p.GetClockRemainingMs()) * time.Millisecond
			d := (got - want).Abs()
			gc.worstClock = max(gc.worstClock, d)
			gc.clocks++
			if d > clockTolerance {
				t.Errorf("match %s ply %d: clock %v, the timestamps say %v", id, p.GetNumber(), got, want)
			}
		}
	}
	return gc
}
