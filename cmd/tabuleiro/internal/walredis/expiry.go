package walredis

import (
	"container/heap"
	"math"
	"sync"
	"sync/atomic"
)

// expiry holds the absolute deadline (Unix nanoseconds) of every key with
// a TTL, in a map and an indexed min-heap: setting, moving or dropping a
// deadline costs O(log n), finding the next one O(1). Written only under
// the store's write lock; read by the TTL commands and the expiry timer.
type expiry struct {
	mu    sync.Mutex
	items map[string]*item
	h     itemHeap
	// next mirrors the earliest deadline (MaxInt64 when none), read
	// without the lock on every command.
	next atomic.Int64
	kick chan struct{} // the earliest deadline moved earlier
}

type item struct {
	key   string
	at    int64
	index int
}

type itemHeap []*item

func (h itemHeap) Len() int           { return len(h) }
func (h itemHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h itemHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *itemHeap) Push(x any) {
	it := x.(*item)
	it.index = len(*h)
	*h = append(*h, it)
}
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return it
}

func newExpiry() *expiry {
	e := &expiry{items: map[string]*item{}, kick: make(chan struct{}, 1)}
	e.next.Store(math.MaxInt64)
	return e
}

func (e *expiry) updateNext() {
	n := int64(math.MaxInt64)
	if len(e.h) > 0 {
		n = e.h[0].at
	}
	if n < e.next.Swap(n) {
		select {
		case e.kick <- struct{}{}:
		default:
		}
	}
}

// set gives key the deadline at.
func (e *expiry) set(key string, at int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if it, ok := e.items[key]; ok {
		it.at = at
		heap.Fix(&e.h, it.index)
	} else {
		it := &item{key: key, at: at}
		e.items[key] = it
		heap.Push(&e.h, it)
	}
	e.updateNext()
}

// drop removes key's deadline, if any.
func (e *expiry) drop(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if it, ok := e.items[key]; ok {
		heap.Remove(&e.h, it.index)
		delete(e.items, key)
		e.updateNext()
	}
}

// get returns key's deadline.
func (e *expiry) get(key string) (int64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	it, ok := e.items[key]
	if !ok {
		return 0, false
	}
	return it.at, true
}

// first returns the key with the earliest deadline if that deadline is
// at or before now.
func (e *expiry) first(now int64) (string, bool) {
	if e.next.Load() > now {
		return "", false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.h) == 0 || e.h[0].at > now {
		return "", false
	}
	return e.h[0].key, true
}

// clear drops every deadline (FLUSHALL, FLUSHDB).
func (e *expiry) clear() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.items = map[string]*item{}
	e.h = nil
	e.updateNext()
}

// len is the number of keys with a deadline.
func (e *expiry) len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.items)
}
