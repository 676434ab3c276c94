package match_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// truth reads the match whole from the store on a brand-new instance.
func (e *env) truth(id string) (*match.State, engine.Position) {
	e.t.Helper()
	fresh := match.NewService(match.Deps{Store: e.store, Rules: match.Registry{}, Now: e.clock.Now}, match.Config{})
	st, pos, err := fresh.Get(context.Background(), id)
	if err != nil {
		e.t.Fatalf("truth: %v", err)
	}
	return st, pos
}

func stateKey(st *match.State) string {
	b, _ := json.Marshal(st)
	p, _ := json.Marshal(st.Plies)
	return fmt.Sprintf("v%d %s plies=%s", st.Version, b, p)
}

// sameAs reports how a (state, position) differs from the truth, or "".
func sameAs(st *match.State, pos engine.Position, tst *match.State, tpos engine.Position) string {
	if a, b := stateKey(st), stateKey(tst); a != b {
		return fmt.Sprintf("state differs:\n got  %s\n want %s", a, b)
	}
	if pos == nil {
		return "nil position"
	}
	if pos.Encode() != tpos.Encode() || pos.ToMove() != tpos.ToMove() {
		return fmt.Sprintf("position differs: %s vs %s", pos.Encode(), tpos.Encode())
	}
	return ""
}

func (e *env) checkEvents(id string, tst *match.State) {
	e.t.Helper()
	evs := e.events(id)
	n := 0
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			e.t.Errorf("event %d has seq %d", i+1, ev.Seq)
		}
		if ev.Kind == match.EventPly {
			if n >= len(tst.Plies) {
				e.t.Errorf("event seq %d: ply %d beyond %d stored plies", ev.Seq, ev.Ply.Number, len(tst.Plies))
				continue
			}
			if p := tst.Plies[n]; p != *ev.Ply {
				e.t.Errorf("event seq %d ply %+v, stored %+v", ev.Seq, *ev.Ply, p)
			}
			n++
		}
	}
	if n != len(tst.Plies) {
		e.t.Errorf("%d ply events, %d stored plies", n, len(tst.Plies))
	}
	if int64(len(evs)) != tst.LastSeq {
		e.t.Errorf("%d events, LastSeq %d", len(evs), tst.LastSeq)
	}
}

var benign = []error{match.ErrStalePly, match.ErrOtherSeat, engine.ErrGameOver, engine.ErrIllegalMove,
	match.ErrNoOffer, match.ErrOfferPending, match.ErrNoDraws, match.ErrNotSeated, match.ErrInvalid}

func isBenign(err error) bool {
	if err == nil {
		return true
	}
	for _, b := range benign {
		if errors.Is(err, b) {
			return true
		}
	}
	return false
}

func stormOne(t *testing.T, g engine.Game, variant string, clock *match.TimeControl, subscribe []bool, seed uint64) {
	t.Logf("seed %d", seed)
	// The check reads the whole event history: none is trimmed.
	e := newEnv(t, len(subscribe), redisstore.Options{StreamMaxLen: 100_000}, match.Config{})
	v, err := games.Lookup(g, variant)
	if err != nil {
		t.Fatal(err)
	}
	seats := []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}}[:v.Players]
	if v.Players < 2 {
		clock = nil
	}
	st, err := e.svcs[0].Create(t.Context(), match.CreateParams{
		RequestID: fmt.Sprintf("storm-%d", time.Now().UnixNano()), Game: g, Variant: variant, Seats: seats, Clock: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	id := st.ID
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	seen := make([]atomic.Int64, len(subscribe)) // the last seq each follower got
	for i, sub := range subscribe {
		if !sub {
			continue
		}
		f, _, _, err := e.svcs[i].Follow(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer f.Close()
			for {
				ev, err := f.Next(ctx)
				if err != nil {
					return
				}
				if ev.Seq > 0 { // a notice (EventSuperseded, after a Join) has no place in the sequence
					seen[i].Store(ev.Seq)
				}
			}
		})
	}
	var (
		stop     atomic.Bool
		bad      atomic.Int64
		checkErr sync.Once
	)
	// A checker compares every instance's cache with the store whenever
	// their versions agree.
	wg.Go(func() {
		for !stop.Load() {
			for i, svc := range e.svcs {
				cst, cpos, ok := svc.CachedForTest(id)
				if !ok || cst == nil {
					continue
				}
				sst, _, err := e.store.Load(context.Background(), id, 0)
				if err != nil || sst.Version != cst.Version {
					continue
				}
				tpos, err := svc.PositionAt(sst, len(sst.Plies))
				if err != nil {
					t.Errorf("replay stored: %v", err)
					continue
				}
				if d := sameAs(cst, cpos, sst, tpos); d != "" {
					bad.Add(1)
					checkErr.Do(func() { t.Errorf("instance %d cache at v%d: %s", i, cst.Version, d) })
				}
			}
			time.Sleep(time.Millisecond)
		}
	})
	var others atomic.Int64
	var workers sync.WaitGroup
	for w := range 6 {
		workers.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			epochs := [3]int64{}
			for op := 0; op < 60 && !stop.Load(); op++ {
				svc := e.svcs[r.IntN(len(e.svcs))]
				seat := engine.Seat(1 + r.IntN(v.Players))
				var err error
				switch k := r.IntN(100); {
				case k < 75:
					cur, pos, gerr := svc.Get(ctx, id)
					if gerr != nil {
						err = gerr
						break
					}
					if cur.Status == match.StatusFinished {
						stop.Store(true)
						return
					}
					legal := pos.Legal()
					if len(legal) == 0 {
						continue
					}
					n := cur.NextPly()
					switch j := r.IntN(20); {
					case j == 0:
						n--
					case j == 1:
						n++
					}
					s := cur.ToMove
					if r.IntN(15) == 0 {
						s = seat
					}
					_, _, err = svc.SubmitPly(ctx, id, s, n, legal[r.IntN(len(legal))].String())
				case k < 81 && v.Draws:
					err = svc.OfferDraw(ctx, id, seat)
				case k < 87 && v.Draws:
					err = svc.AnswerDraw(ctx, id, seat, r.IntN(10) == 0)
				case k < 92:
					var ep int64
					ep, err = svc.Join(ctx, id, seat)
					epochs[seat] = ep
				case k < 97:
					err = svc.Leave(ctx, id, seat, epochs[seat])
				case k < 98:
					err = svc.Resign(ctx, id, seat)
				default:
					e.clock.Advance(time.Duration(r.IntN(300)) * time.Millisecond)
				}
				if !isBenign(err) {
					others.Add(1)
					t.Logf("op error: %v", err)
				}
			}
		})
	}
	workers.Wait()
	stop.Store(true)
	// Every follower gets every event.
	last, _ := e.truth(id)
	for i, sub := range subscribe {
		if sub {
			testenv.Eventually(t, 5*time.Second, fmt.Sprintf("instance %d's follower at seq %d", i, last.LastSeq), func() bool {
				return seen[i].Load() == last.LastSeq
			})
		}
	}
	cancel()
	wg.Wait()

	tst, tpos := e.truth(id)
	e.checkEvents(id, tst)
	for i, svc := range e.svcs {
		if cst, cpos, ok := svc.CachedForTest(id); ok && cst != nil && cst.Version == tst.Version {
			if d := sameAs(cst, cpos, tst, tpos); d != "" {
				t.Errorf("instance %d cache (same version): %s", i, d)
			}
		}
		gst, gpos, err := svc.Get(t.Context(), id)
		if err != nil {
			t.Fatalf("instance %d get: %v", i, err)
		}
		if d := sameAs(gst, gpos, tst, tpos); d != "" {
			t.Errorf("instance %d Get: %s", i, d)
		}
	}
	t.Logf("%s/%s: %d plies, v%d, status %v, %d unexpected op errors, %d cache mismatches", g, variant, len(tst.Plies), tst.Version, tst.Status, others.Load(), bad.Load())
}

// Storms of plies (stale, ahead, wrong seat), resignations, draw offers,
// joins and leaves and clock advances on one match from several instances,
// some following it: every instance's cache agrees with the store whenever
// their versions match, and at the end with a replay from the start.
func TestStormOfActionsAcrossInstances(t *testing.T) {
	t.Parallel()
	tc := &match.TimeControl{BaseMS: 600_000, IncrementMS: 1000}
	for _, g := range []engine.Game{engine.Quoridor, engine.Corners, engine.Banqi} {
		vs, err := games.Variants(g)
		if err != nil {
			t.Fatal(err)
		}
		for vi, v := range vs {
			if vi > 2 {
				break
			}
			t.Run(string(g)+"/"+v.ID, func(t *testing.T) {
				stormOne(t, g, v.ID, tc, []bool{true, true, false}, uint64(time.Now().UnixNano()))
			})
		}
	}
}

// Every variant, every instance following the match, and one that does not.
func TestStormOfActionsEveryVariant(t *testing.T) {
	t.Parallel()
	tc := &match.TimeControl{BaseMS: 5_000, IncrementMS: 0} // short: flags fall on clock advances
	for _, g := range []engine.Game{engine.Quoridor, engine.Corners, engine.Banqi} {
		vs, err := games.Variants(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			t.Run(string(g)+"/"+v.ID, func(t *testing.T) {
				stormOne(t, g, v.ID, tc, []bool{true, true, true, false}, uint64(time.Now().UnixNano()))
			})
		}
	}
}
