package limit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// acquireAsync asks for a slot of key in its own goroutine and reports on
// done (the key, and the error) once it has one; the slot stays held until
// hold is closed.
func acquireAsync(l *Limiter, ctx context.Context, key string, done chan<- string, hold <-chan struct{}, wg *sync.WaitGroup) {
	wg.Go(func() {
		release, err := l.Acquire(ctx, key, 0)
		if err != nil {
			done <- key + " refused: " + err.Error()
			return
		}
		done <- key
		<-hold
		release()
	})
}

// One player whose many games fill every slot and the queue does not keep
// a second player waiting behind all of them: the second player's request
// gets the first slot that frees, ahead of the first player's older ones.
func TestFreedSlotGoesToTheOtherPlayerFirst(t *testing.T) {
	l := New(2, 64)
	var wg sync.WaitGroup
	granted := make(chan string, 100)
	holds := make([]chan struct{}, 0)
	// Player a's two running searches, each released on its own.
	for range 2 {
		h := make(chan struct{})
		holds = append(holds, h)
		acquireAsync(l, t.Context(), "a", granted, h, &wg)
		if got := <-granted; got != "a" {
			t.Fatal(got)
		}
	}
	hold := make(chan struct{})
	for range 10 {
		acquireAsync(l, t.Context(), "a", granted, hold, &wg)
	}
	waitFor(t, "a's 10 requests waiting", func() bool { return l.Stats().Waiting == 10 })
	acquireAsync(l, t.Context(), "b", granted, hold, &wg)
	waitFor(t, "b's request waiting", func() bool { return l.Stats().Waiting == 11 })
	close(holds[0]) // one slot frees
	if got := <-granted; got != "b" {
		t.Fatalf("the freed slot went to %q, want b's request (a's 10 waited longer but a has a search running)", got)
	}
	close(holds[1])
	close(hold)
	for range 10 {
		if got := <-granted; got != "a" {
			t.Fatal(got)
		}
	}
	wg.Wait()
	if s := l.Stats(); s.Running != 0 || s.Waiting != 0 || s.Players != 0 {
		t.Fatalf("after the burst: %+v", s)
	}
}

// Freed slots go round robin among waiting players with as many running:
// three players with 4 requests waiting each are served a, b, c, a, b, c…
func TestWaitingPlayersAreServedRoundRobin(t *testing.T) {
	l := New(1, 64)
	release, err := l.Acquire(t.Context(), "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	for i := range 12 {
		key := string(rune('a' + i/4))
		wg.Go(func() {
			r, err := l.Acquire(t.Context(), key, 0)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, key)
			mu.Unlock()
			r()
		})
		waitFor(t, "the request waiting", func() bool { return l.Stats().Waiting == i+1 })
	}
	release()
	wg.Wait()
	if got, want := fmt.Sprint(order), "[a b c a b c a b c a b c]"; got != want {
		t.Fatalf("served in the order %s, want %s", got, want)
	}
}

// A player runs at most PerPlayer searches even with slots free, so that
// another player's request starts at once.
func TestOnePlayerTakesAtMostItsShare(t *testing.T) {
	l := New(8, 64)
	if l.Stats().PerPlayer != 6 {
		t.Fatalf("per player: %d, want 6 of 8", l.Stats().PerPlayer)
	}
	var releases []func()
	for range 6 {
		r, err := l.Acquire(t.Context(), "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	ctx, cancel := context.WithCancel(t.Context())
	waited := make(chan error, 1)
	go func() {
		r, err := l.Acquire(ctx, "a", 0)
		if err == nil {
			r()
		}
		waited <- err
	}()
	waitFor(t, "a's 7th request waiting", func() bool { return l.Stats().Waiting == 1 })
	// b starts at once in a free slot.
	r, err := l.Acquire(t.Context(), "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Running != 7 || s.Waiting != 1 {
		t.Fatalf("with a at its share and b running: %+v", s)
	}
	r()
	// a's 7th runs when one of a's own frees.
	releases[0]()
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	cancel()
	for _, r := range releases[1:] {
		r()
	}
}

// A full queue makes room for a player with fewer waiting by refusing the
// newest request of the player with the most; a request of that player
// itself is refused.
func TestFullQueueRefusesThePlayerWithTheMostWaiting(t *testing.T) {
	l := New(1, 4)
	release, err := l.Acquire(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			r, err := l.Acquire(t.Context(), "a", 0)
			if err == nil {
				r()
			}
			errs <- err
		})
		waitFor(t, "a's request waiting", func() bool { return l.Stats().Waiting == i+1 })
	}
	if _, err := l.Acquire(t.Context(), "a", 0); !errors.Is(err, ErrBusy) {
		t.Fatalf("a's 6th request with the queue full of a's: %v, want ErrBusy", err)
	}
	bDone := make(chan error, 1)
	go func() {
		r, err := l.Acquire(t.Context(), "b", 0)
		if err == nil {
			r()
		}
		bDone <- err
	}()
	if err := <-errs; !errors.Is(err, ErrBusy) {
		t.Fatalf("a's newest waiter: %v, want refused for b", err)
	}
	waitFor(t, "b waiting in a's place", func() bool { s := l.Stats(); return s.Waiting == 4 && s.Players == 2 })
	release()
	if err := <-bDone; err != nil {
		t.Fatalf("b: %v", err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a's older waiters: %v", err)
		}
	}
}

// A waiter that gives up leaves no trace, and a slot granted as it gave up
// is freed again.
func TestGivingUpLeavesNothing(t *testing.T) {
	l := New(1, 8)
	release, err := l.Acquire(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 20 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		wg.Go(func() {
			defer cancel()
			if r, err := l.Acquire(ctx, "b", 0); err == nil {
				r()
			}
		})
	}
	wg.Wait()
	release()
	if s := l.Stats(); s.Running != 0 || s.Waiting != 0 || s.Players != 0 {
		t.Fatalf("after the waiters gave up: %+v", s)
	}
}
