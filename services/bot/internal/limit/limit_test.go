package limit

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/testenv"
)

// waitFor polls cond until it holds: the test waits on the limiter's own
// counters, never on a fixed sleep.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := testenv.Deadline(t)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSlotsBoundConcurrency(t *testing.T) {
	l := New(3, 100)
	var wg sync.WaitGroup
	hold := make(chan struct{})
	for range 40 {
		wg.Go(func() {
			release, err := l.Acquire(context.Background(), "p", time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			<-hold
			release()
		})
	}
	waitFor(t, "3 running and 37 waiting", func() bool { s := l.Stats(); return s.Running == 3 && s.Waiting == 37 })
	close(hold)
	wg.Wait()
	if s := l.Stats(); s.Peak != 3 || s.Running != 0 || s.Waiting != 0 {
		t.Fatalf("stats after the burst: %+v, want peak 3 and nothing running or waiting", s)
	}
}

func TestFullQueueIsBusy(t *testing.T) {
	l := New(1, 2)
	release, err := l.Acquire(context.Background(), "p", 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { _, _ = l.Acquire(ctx, "p", 0) })
	}
	waitFor(t, "2 waiting", func() bool { return l.Stats().Waiting == 2 })
	_, err = l.Acquire(context.Background(), "p", 0)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("third waiter: %v, want ErrBusy", err)
	}
	t.Logf("refused: %v", err)
	cancel()
	wg.Wait()
	release()
	if s := l.Stats(); s.Running != 0 || s.Waiting != 0 {
		t.Fatalf("stats: %+v", s)
	}
}

// A request waits only while its deadline still leaves its budget: with the
// deadline closer than the budget it is refused at once, not after it.
func TestDeadlineLeavesNoBudget(t *testing.T) {
	l := New(1, 10)
	release, err := l.Acquire(context.Background(), "p", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = l.Acquire(ctx, "p", 2*time.Minute)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
	// A caller that gives up gets its own error, not ErrBusy.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := l.Acquire(ctx2, "p", 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}
}

func TestReleaseTwiceFreesOnce(t *testing.T) {
	l := New(1, 0)
	release, err := l.Acquire(context.Background(), "p", 0)
	if err != nil {
		t.Fatal(err)
	}
	release()
	release()
	r2, err := l.Acquire(context.Background(), "p", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire(context.Background(), "p", 0); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second release freed a second slot: %v", err)
	}
	r2()
}

// TestThreadsShareTheProcessors: a lone search gets the processors (up to
// MaxThreads); searches running side by side share them, one each at least.
func TestThreadsShareTheProcessors(t *testing.T) {
	l := New(8, 0)
	if n := l.Threads(2); n != 2 {
		t.Errorf("nothing running, 2 processors: %d threads, want 2", n)
	}
	var releases []func()
	acquire := func() {
		release, err := l.Acquire(context.Background(), "p", 0)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	acquire()
	for _, c := range []struct{ procs, want int }{{1, 1}, {2, 2}, {16, MaxThreads}} {
		if n := l.Threads(c.procs); n != c.want {
			t.Errorf("one search, %d processors: %d threads, want %d", c.procs, n, c.want)
		}
	}
	acquire()
	acquire()
	for _, c := range []struct{ procs, want int }{{2, 1}, {8, 2}, {6, 2}} {
		if n := l.Threads(c.procs); n != c.want {
			t.Errorf("three searches, %d processors: %d threads, want %d", c.procs, n, c.want)
		}
	}
	for _, r := range releases {
		r()
	}
}
