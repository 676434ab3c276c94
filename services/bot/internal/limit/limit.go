// Package limit bounds the bot's concurrent searches, and so its memory: a
// search holds a transposition table of up to search.MaxTableBytes, and
// without a bound a burst of expert requests grows the process until the
// kernel kills it. A request takes one of Slots search slots; when all are
// taken it queues (first come, first served) for as long as its caller's
// deadline still leaves its thinking budget, and is refused with
// ErrBusy when Queue requests already wait or the deadline would pass
// before a slot frees.
package limit

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// ErrBusy reports a request refused for want of a search slot. The gRPC
// layer maps it to RESOURCE_EXHAUSTED: the caller may retry later or on
// another replica.
var ErrBusy = errors.New("bot busy")

// Limiter hands out search slots. Its zero value is not usable: call New.
type Limiter struct {
	slots, queue int64
	sem          *semaphore.Weighted
	running      atomic.Int64
	waiting      atomic.Int64
	peak         atomic.Int64
}

// New returns a limiter of slots concurrent searches (at least 1) with at
// most queue waiting requests (0: none wait).
func New(slots, queue int) *Limiter {
	slots = max(slots, 1)
	queue = max(queue, 0)
	return &Limiter{slots: int64(slots), queue: int64(queue), sem: semaphore.NewWeighted(int64(slots))}
}

// Acquire takes a slot for a search that thinks for budget. It waits while
// ctx's deadline still leaves budget after the wait (without a deadline, as
// long as ctx lives). It returns the function that frees the slot, or an
// error wrapping ErrBusy (or ctx's error when the caller gave up).
func (l *Limiter) Acquire(ctx context.Context, budget time.Duration) (release func(), err error) {
	if l.sem.TryAcquire(1) {
		return l.took(), nil
	}
	if n := l.waiting.Add(1); n > l.queue {
		l.waiting.Add(-1)
		return nil, fmt.Errorf("%w: %d searches running and %d requests waiting, the most this replica takes (BOT_MAX_SEARCHES=%d, BOT_MAX_QUEUE=%d): retry later", ErrBusy, l.running.Load(), n-1, l.slots, l.queue)
	}
	defer l.waiting.Add(-1)
	wctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, dl.Add(-budget))
		defer cancel()
	}
	start := time.Now()
	if err := l.sem.Acquire(wctx, 1); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: no search slot of %d freed within the caller's deadline less the %s budget (waited %s)", ErrBusy, l.slots, budget, time.Since(start).Round(time.Millisecond))
	}
	return l.took(), nil
}

func (l *Limiter) took() func() {
	n := l.running.Add(1)
	for {
		p := l.peak.Load()
		if n <= p || l.peak.CompareAndSwap(p, n) {
			break
		}
	}
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			l.running.Add(-1)
			l.sem.Release(1)
		}
	}
}

// Stats are a limiter's counters.
type Stats struct {
	Slots, Queue     int
	Running, Waiting int
	// Peak is the most searches that ever ran at once.
	Peak int
}

// Stats returns the limiter's counters now.
func (l *Limiter) Stats() Stats {
	return Stats{Slots: int(l.slots), Queue: int(l.queue), Running: int(l.running.Load()), Waiting: int(l.waiting.Load()), Peak: int(l.peak.Load())}
}
