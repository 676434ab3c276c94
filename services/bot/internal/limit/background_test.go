package limit

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A live ply waiting for a slot gets the one a review's ply frees before
// the review's next ply does, and reviews never take more than half the
// slots.
func TestBackgroundYieldsToSearches(t *testing.T) {
	l := New(2, 8)
	r1, err := l.AcquireBackground(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The second slot stays for searches: a second review waits.
	got := make(chan string, 3)
	go func() {
		rel, err := l.AcquireBackground(context.Background())
		if err != nil {
			t.Error(err)
			return
		}
		got <- "review"
		rel()
	}()
	waitFor(t, "the second review to queue", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.lows) == 1 })
	s1, err := l.Acquire(context.Background(), "a", time.Second)
	if err != nil {
		t.Fatal(err) // the free slot goes to the search at once
	}
	go func() {
		rel, err := l.Acquire(context.Background(), "b", time.Second)
		if err != nil {
			t.Error(err)
			return
		}
		got <- "search"
		rel()
	}()
	waitFor(t, "the search to queue", func() bool { return l.Stats().Waiting == 1 })
	r1() // frees a slot: the waiting search takes it, not the review
	if first := <-got; first != "search" {
		t.Fatalf("first served: %s, want the search", first)
	}
	s1()
	if second := <-got; second != "review" {
		t.Fatalf("then: %s, want the review", second)
	}
}

func TestBackgroundQueueBounded(t *testing.T) {
	l := New(1, 1)
	rel, err := l.AcquireBackground(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := l.AcquireBackground(ctx); done <- err }()
	waitFor(t, "a review to queue", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.lows) == 1 })
	if _, err := l.AcquireBackground(context.Background()); !errors.Is(err, ErrBusy) {
		t.Fatalf("third review: %v, want ErrBusy", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled review: %v", err)
	}
}
