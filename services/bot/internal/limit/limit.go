// Package limit bounds the bot's concurrent searches, and so its memory: a
// search holds a transposition table of up to search.MaxTableBytes, and
// without a bound a burst of expert requests grows the process until the
// kernel kills it. A request takes one of Slots search slots; when all are
// taken it queues for as long as its caller's deadline still leaves its
// thinking budget, and is refused with ErrBusy when the deadline would pass
// before a slot frees.
//
// The slots are shared fairly between players (the key of each request:
// the player whose game asks), so that one player's many games cannot take
// every slot:
//   - a player runs at most PerPlayer searches at once (Slots less a
//     quarter), leaving slots for the others to start at once;
//   - a freed slot goes to the waiting player with the fewest searches
//     running, and among those to the one served longest ago (round robin),
//     not to the oldest request;
//   - when Queue requests already wait, a new request takes the place of
//     the newest request of the player with the most waiting (who is
//     refused), or is refused itself if its own player has as many waiting.
package limit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrBusy reports a request refused for want of a search slot. The gRPC
// layer maps it to RESOURCE_EXHAUSTED: the caller may retry later or on
// another replica.
var ErrBusy = errors.New("bot busy")

// Limiter hands out search slots. Its zero value is not usable: call New.
type Limiter struct {
	slots, queue, perKey int

	mu      sync.Mutex
	keys    map[string]*keyState // players running or waiting
	running int
	waiting int
	peak    int
	served  uint64 // grants so far: orders players by their last grant
	arrived uint64 // requests queued so far: orders waiters by arrival

	// Background work (game reviews, AcquireBackground) waits in lows,
	// oldest first, and takes a free slot only when no search waits for
	// one; lowRunning of the running searches are background ones.
	lows       []*waiter
	lowRunning int
}

// keyState is one player's searches: running, and waiting oldest first.
type keyState struct {
	running   int
	waiters   []*waiter
	lastGrant uint64 // l.served at this player's last grant; 0: never
}

// waiter is a queued request: done receives nil when it is granted a slot,
// or an ErrBusy error when a fairer request took its place in the queue.
type waiter struct {
	done chan error
	seq  uint64 // arrival order
}

// New returns a limiter of slots concurrent searches (at least 1) with at
// most queue waiting requests (0: none wait). A player runs at most
// PerPlayer(slots) searches at once.
func New(slots, queue int) *Limiter {
	slots = max(slots, 1)
	return &Limiter{slots: slots, queue: max(queue, 0), perKey: PerPlayer(slots), keys: map[string]*keyState{}}
}

// PerPlayer is the most searches one player runs at once out of slots: all
// but a quarter of them (at least 1).
func PerPlayer(slots int) int { return max(1, slots-slots/4) }

// Acquire takes a slot for a search of player key that thinks for budget.
// It waits while ctx's deadline still leaves budget after the wait (without
// a deadline, as long as ctx lives). It returns the function that frees the
// slot, or an error wrapping ErrBusy (or ctx's error when the caller gave
// up).
func (l *Limiter) Acquire(ctx context.Context, key string, budget time.Duration) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	ks := l.keys[key]
	if ks == nil {
		ks = &keyState{}
		l.keys[key] = ks
	}
	if l.running < l.slots && ks.running < l.perKey {
		// Free slots and this player under its share: no one eligible
		// waits (dispatch would have served them), so it runs now.
		l.grant(ks)
		l.mu.Unlock()
		return l.releaser(key), nil
	}
	if l.waiting >= l.queue {
		if err := l.makeRoom(key, ks); err != nil {
			l.forget(key, ks)
			l.mu.Unlock()
			return nil, err
		}
	}
	l.arrived++
	w := &waiter{done: make(chan error, 1), seq: l.arrived}
	ks.waiters = append(ks.waiters, w)
	l.waiting++
	l.mu.Unlock()

	wctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, dl.Add(-budget))
		defer cancel()
	}
	start := time.Now()
	select {
	case err := <-w.done:
		if err != nil {
			return nil, err
		}
		return l.releaser(key), nil
	case <-wctx.Done():
	}
	l.mu.Lock()
	if l.dequeue(key, w) {
		l.mu.Unlock()
	} else {
		// Granted or refused while the caller gave up.
		l.mu.Unlock()
		if err := <-w.done; err == nil {
			l.releaser(key)()
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("%w: no search slot of %d freed within the caller's deadline less the %s budget (waited %s)", ErrBusy, l.slots, budget, time.Since(start).Round(time.Millisecond))
}

// makeRoom frees a place in the full queue for a request of key: the
// newest request of the player with the most waiting is refused, if that
// player has more waiting than key has. Called with l.mu held.
func (l *Limiter) makeRoom(key string, ks *keyState) error {
	var (
		most    *keyState
		mostKey string
	)
	for k, o := range l.keys {
		if most == nil || len(o.waiters) > len(most.waiters) ||
			len(o.waiters) == len(most.waiters) && o.running > most.running {
			most, mostKey = o, k
		}
	}
	if most == nil || len(most.waiters) <= len(ks.waiters) {
		return fmt.Errorf("%w: %d searches running and %d requests waiting, %d of them this player's, the most this replica takes (BOT_MAX_SEARCHES=%d, BOT_MAX_QUEUE=%d): retry later", ErrBusy, l.running, l.waiting, len(ks.waiters), l.slots, l.queue)
	}
	w := most.waiters[len(most.waiters)-1]
	most.waiters = most.waiters[:len(most.waiters)-1]
	l.waiting--
	w.done <- fmt.Errorf("%w: the queue of %d requests is full and this player has the most of them waiting (BOT_MAX_QUEUE=%d): retry later", ErrBusy, l.queue, l.queue)
	l.forget(mostKey, most)
	return nil
}

// dequeue removes w from key's waiters, reporting whether it was there.
// Called with l.mu held.
func (l *Limiter) dequeue(key string, w *waiter) bool {
	ks := l.keys[key]
	if ks == nil {
		return false
	}
	for i, o := range ks.waiters {
		if o == w {
			ks.waiters = append(ks.waiters[:i], ks.waiters[i+1:]...)
			l.waiting--
			l.forget(key, ks)
			l.dispatch() // a player capped behind w may now be served
			return true
		}
	}
	return false
}

// MaxBackground is the most background slots running at once out of
// slots: half of them (at least 1), so that a burst of reviews leaves the
// other half free for live plies even before they ask.
func MaxBackground(slots int) int { return max(1, slots/2) }

// AcquireBackground takes a slot for a short piece of background work (a
// game review's ply) that yields to searches: it runs only on a free slot
// when no search waits, at most MaxBackground(Slots) at once, and a freed
// slot goes to a waiting search first. It waits as long as ctx lives, one
// of at most Queue background requests; past that it is refused with
// ErrBusy. Callers take a slot per piece of work, so that a live ply
// waits for at most one piece.
func (l *Limiter) AcquireBackground(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	maxLow := MaxBackground(l.slots)
	l.mu.Lock()
	if l.running < l.slots && l.waiting == 0 && len(l.lows) == 0 && l.lowRunning < maxLow {
		l.running++
		l.lowRunning++
		l.peak = max(l.peak, l.running)
		l.mu.Unlock()
		return l.lowReleaser(), nil
	}
	if len(l.lows) >= max(l.queue, 1) {
		n := len(l.lows)
		l.mu.Unlock()
		return nil, fmt.Errorf("%w: %d background requests already wait (BOT_MAX_QUEUE=%d): retry later", ErrBusy, n, l.queue)
	}
	l.arrived++
	w := &waiter{done: make(chan error, 1), seq: l.arrived}
	l.lows = append(l.lows, w)
	l.mu.Unlock()
	select {
	case err := <-w.done:
		if err != nil {
			return nil, err
		}
		return l.lowReleaser(), nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	for i, o := range l.lows {
		if o == w {
			l.lows = append(l.lows[:i], l.lows[i+1:]...)
			l.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	l.mu.Unlock()
	if err := <-w.done; err == nil { // granted while the caller gave up
		l.lowReleaser()()
	}
	return nil, ctx.Err()
}

// lowReleaser returns the function that frees a background slot, once.
func (l *Limiter) lowReleaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.running--
			l.lowRunning--
			l.dispatch()
		})
	}
}

// grant counts a slot taken by ks. Called with l.mu held.
func (l *Limiter) grant(ks *keyState) {
	l.running++
	ks.running++
	l.served++
	ks.lastGrant = l.served
	l.peak = max(l.peak, l.running)
}

// dispatch hands free slots to waiters: each to the oldest request of the
// eligible player (under its share) with the fewest running, among those
// the one served longest ago, and among those never served the one waiting
// longest. Called with l.mu held.
func (l *Limiter) dispatch() {
	for l.running < l.slots && l.waiting > 0 {
		var next *keyState
		for _, ks := range l.keys {
			if len(ks.waiters) == 0 || ks.running >= l.perKey {
				continue
			}
			if next == nil || ks.running < next.running ||
				ks.running == next.running && (ks.lastGrant < next.lastGrant ||
					ks.lastGrant == next.lastGrant && ks.waiters[0].seq < next.waiters[0].seq) {
				next = ks
			}
		}
		if next == nil {
			return
		}
		w := next.waiters[0]
		next.waiters = next.waiters[1:]
		l.waiting--
		l.grant(next)
		w.done <- nil
	}
	// Background work only once no search waits for a slot.
	for l.running < l.slots && l.waiting == 0 && len(l.lows) > 0 && l.lowRunning < MaxBackground(l.slots) {
		w := l.lows[0]
		l.lows = l.lows[1:]
		l.running++
		l.lowRunning++
		l.peak = max(l.peak, l.running)
		w.done <- nil
	}
}

// forget drops a player with nothing running or waiting. Called with l.mu
// held.
func (l *Limiter) forget(key string, ks *keyState) {
	if ks.running == 0 && len(ks.waiters) == 0 && l.keys[key] == ks {
		delete(l.keys, key)
	}
}

// releaser returns the function that frees a slot of key, once.
func (l *Limiter) releaser(key string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			ks := l.keys[key]
			l.running--
			ks.running--
			l.forget(key, ks)
			l.dispatch()
		})
	}
}

// Stats are a limiter's counters.
type Stats struct {
	Slots, Queue     int
	Running, Waiting int
	// PerPlayer is the most searches one player runs at once.
	PerPlayer int
	// Players is how many players have searches running or waiting.
	Players int
	// Peak is the most searches that ever ran at once.
	Peak int
}

// RunningOf returns how many searches of player key run now.
func (l *Limiter) RunningOf(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ks := l.keys[key]; ks != nil {
		return ks.running
	}
	return 0
}

// MaxThreads caps the goroutines one search gets from Threads.
const MaxThreads = 4

// Threads returns how many goroutines a search holding a slot may search
// on, given procs processors: an equal share of them among the searches
// running now (so a lone search uses the idle cores and a full replica
// one each), at least 1 and at most MaxThreads.
func (l *Limiter) Threads(procs int) int {
	l.mu.Lock()
	running := l.running
	l.mu.Unlock()
	return min(MaxThreads, max(1, procs/max(running, 1)))
}

// Stats returns the limiter's counters now.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{Slots: l.slots, Queue: l.queue, Running: l.running, Waiting: l.waiting, PerPlayer: l.perKey, Players: len(l.keys), Peak: l.peak}
}
