package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// Hub fans the live events of every match that this instance's clients
// follow out of ONE Pub/Sub connection (on a Redis Cluster, one per hash
// slot of the matches followed, on the slot's primary: sharded Pub/Sub,
// see shardsub.go): a channel (one per match, see Store.Channel) is
// subscribed while at least one local subscriber follows its match,
// however many do. A subscriber costs nothing while its match
// is idle: no timer, no goroutine and no Redis call of its own.
//
// A publication can be lost (with Options.WaitReplicas the events are
// published after the commit, by the committing instance, which may die
// in between): every Resync, the hub reads the last event of each match
// followed here that has been quiet that long, all in one pipeline, and
// passes it on if it is newer than any the hub saw; a subscriber that
// missed events before it sees the gap and fills it from the stream. One
// read per quiet match, not one per subscriber.
type Hub struct {
	s      *Store
	log    *slog.Logger
	ps     *redis.PubSub // on a single Redis
	bufLen int

	// On a cluster: the sharded subscriptions by slot, read by
	// shardReaders into in; done is closed when Run returns.
	shards map[int]*redis.PubSub
	in     chan shardMsg
	done   chan struct{}
	closed bool
	// unsubbing counts the unsubscriptions asked for per channel and not
	// confirmed yet (any other is Redis's: the slot moved).
	unsubbing map[string]int
	// followed counts the channels subscribed per slot: a slot's
	// subscription is closed when it has none left (a Watch of an id in
	// any slot must not leave a connection open).
	followed map[int]int
	readers  sync.WaitGroup

	onCommit func(match.Published) // set before Run
	// Resync is how long a followed match stays quiet before the hub
	// checks its last event (default 2 s; negative: never). Set before
	// Run.
	Resync time.Duration

	mu      sync.Mutex
	subs    map[string]map[*hubSub]struct{} // by channel
	waiting map[string][]chan struct{}      // subscriptions not yet confirmed
	ready   map[string]bool                 // confirmed channels
	// last is the seq of the newest event passed on per subscribed
	// channel (older ones arriving later are dropped), heard when the
	// channel last had news (an event, or a resync's read).
	last  map[string]int64
	heard map[string]time.Time
}

type hubSub struct {
	ch     chan *match.Event // shared by the match's subscribers: read only
	closed bool
}

var _ match.Hub = (*Hub)(nil)

// NewHub returns a hub on s's Redis; Run must be running for Subscribe to
// return.
func NewHub(ctx context.Context, s *Store, logger *slog.Logger) *Hub {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h := &Hub{
		s: s, log: logger, bufLen: 32, Resync: 2 * time.Second,
		subs: map[string]map[*hubSub]struct{}{}, waiting: map[string][]chan struct{}{}, ready: map[string]bool{},
		last: map[string]int64{}, heard: map[string]time.Time{},
	}
	if s.sharded() {
		h.shards, h.in, h.done = map[int]*redis.PubSub{}, make(chan shardMsg, 256), make(chan struct{})
		h.unsubbing, h.followed = map[string]int{}, map[int]int{}
	} else {
		h.ps = s.rdb.Subscribe(ctx)
	}
	return h
}

// shardMsg is a message, a subscription's confirmation or errShardLost
// read from the sharded subscription ps.
type shardMsg struct {
	ps   *redis.PubSub
	slot int
	msg  any
}

// shard returns slot's sharded subscription, new if fresh (nil once Run
// returned). Under h.mu. The caller of a fresh one subscribes it to a
// channel of the slot, and then starts its reader (read): a PubSub that
// reads before it has a channel connects to any node.
func (h *Hub) shard(slot int) (ps *redis.PubSub, fresh bool) {
	if ps := h.shards[slot]; ps != nil || h.closed {
		return ps, false
	}
	ps = h.s.cluster.SSubscribe(context.Background())
	h.shards[slot] = ps
	return ps, true
}

// read starts the reader of slot's sharded subscription ps.
func (h *Hub) read(slot int, ps *redis.PubSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.readers.Go(func() {
		h.s.shardReader(ps, h.done, func(channel string) bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.unsubbing[channel] == 0 {
				return false
			}
			if h.unsubbing[channel]--; h.unsubbing[channel] == 0 {
				delete(h.unsubbing, channel)
			}
			return true
		}, func(m any) {
			select {
			case h.in <- shardMsg{ps: ps, slot: slot, msg: m}:
			case <-h.done:
			}
		})
	})
}

// resubscribe replaces slot's lost sharded subscription lost by a new
// one, of every channel of the slot followed here, once the client's
// slot map is reloaded. Their followers are closed when the new
// subscription is confirmed (they catch up from the stream).
func (h *Hub) resubscribe(slot int, lost *redis.PubSub) {
	h.mu.Lock()
	if h.shards[slot] != lost {
		h.mu.Unlock()
		return
	}
	delete(h.shards, slot)
	h.mu.Unlock()
	_ = lost.Close()
	h.readers.Go(func() {
		select {
		case <-h.done:
			return
		case <-time.After(shardRetry):
		}
		h.mu.Lock()
		var channels []string
		for ch := range h.subs {
			if hashSlot(ch) == slot {
				channels = append(channels, ch)
			}
		}
		var (
			ps    *redis.PubSub
			fresh bool
		)
		if len(channels) > 0 {
			ps, fresh = h.shard(slot)
		}
		h.mu.Unlock()
		if ps == nil {
			return
		}
		h.log.Info("hub: subscribing again to a slot's channels", "slot", slot, "channels", len(channels))
		if err := ps.SSubscribe(context.Background(), channels...); err != nil {
			h.log.Warn("hub: subscribe again", "slot", slot, "err", err)
		}
		if fresh {
			h.read(slot, ps)
		}
	})
}

// OnCommit sets f to be told of every commit published on the channels
// this hub follows, before the commit's events reach the subscribers (the
// service keeps its cache current with it). Call it before Run; f must not
// block.
func (h *Hub) OnCommit(f func(match.Published)) { h.onCommit = f }

// Run reads the connection and fans messages out until ctx ends; then it
// closes the connection and every subscriber.
func (h *Hub) Run(ctx context.Context) error {
	if h.s.sharded() {
		return h.runSharded(ctx)
	}
	msgs := h.ps.ChannelWithSubscriptions()
	defer h.withResync(ctx)()
	defer func() {
		_ = h.ps.Close()
		h.closeAll()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-msgs:
			if !ok {
				return errors.New("hub: pubsub closed")
			}
			switch m := m.(type) {
			case *redis.Subscription:
				h.confirm(m)
			case *redis.Message:
				h.deliver(m)
			}
		}
	}
}

// withResync runs the check of quiet matches (Resync) beside Run until
// the returned stop.
func (h *Hub) withResync(ctx context.Context) (stop func()) {
	if h.Resync <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { h.resyncLoop(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}

// runSharded is Run on a cluster: the sharded subscriptions' readers
// pass their messages on to it.
func (h *Hub) runSharded(ctx context.Context) error {
	defer h.withResync(ctx)()
	defer func() {
		h.mu.Lock()
		h.closed = true
		close(h.done)
		for _, ps := range h.shards {
			_ = ps.Close()
		}
		h.mu.Unlock()
		h.readers.Wait()
		h.closeAll()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-h.in:
			switch msg := m.msg.(type) {
			case *redis.Subscription:
				h.confirm(msg)
			case *redis.Message:
				h.deliver(msg)
			case error:
				h.log.Warn("hub: a slot's subscription is lost; subscribing again", "slot", m.slot)
				h.resubscribe(m.slot, m.ps)
			}
		}
	}
}

// closeAll closes every subscriber.
func (h *Hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.subs {
		for sub := range set {
			h.closeSub(sub)
		}
	}
	h.subs = map[string]map[*hubSub]struct{}{}
}

func (h *Hub) confirm(m *redis.Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch m.Kind {
	case "subscribe", "ssubscribe":
		for _, w := range h.waiting[m.Channel] {
			close(w)
		}
		delete(h.waiting, m.Channel)
		if h.ready[m.Channel] {
			// A resubscription after a reconnection: messages may have been
			// lost, so every follower catches up from the stream.
			for sub := range h.subs[m.Channel] {
				h.closeSub(sub)
				delete(h.subs[m.Channel], sub)
			}
		}
		h.ready[m.Channel] = true
	case "unsubscribe", "sunsubscribe":
		delete(h.ready, m.Channel)
	}
}

func (h *Hub) deliver(m *redis.Message) {
	id := h.s.matchOf(m.Channel)
	var (
		e      match.Event
		err    error
		commit *match.Published
	)
	switch p := m.Payload; {
	case len(p) > 0 && p[0] == tagCommit: // a commit's last event (see withCommit)
		var (
			version int64
			events  int
			event   []byte
			rest    []byte
		)
		if version, events, event, rest, err = parseCommit([]byte(p)); err == nil {
			if err = decodeEvent(event, id, &e); err == nil && version > 0 && events > 0 {
				commit = &match.Published{ID: id, Version: version, Seq: e.Seq, Events: events, Decode: func() (*match.State, []match.PlyRecord, error) {
					return decodeCommitBinary(version, rest)
				}}
			}
		}
	case strings.HasPrefix(p, "#"): // the same, JSON (versions before the binary encoding)
		payload, version, events, rest := p, int64(0), int64(0), ""
		head, payload, ok := strings.Cut(payload[1:], "\n")
		if ok {
			payload, rest, _ = strings.Cut(payload, "\n")
			v, n, _ := strings.Cut(head, " ")
			version, _ = strconv.ParseInt(v, 10, 64)
			events, _ = strconv.ParseInt(n, 10, 64)
		}
		if err = decodeEvent([]byte(payload), id, &e); err == nil && version > 0 && events > 0 && rest != "" {
			commit = &match.Published{ID: id, Version: version, Seq: e.Seq, Events: int(events), Decode: func() (*match.State, []match.PlyRecord, error) {
				return decodeCommit(version, rest)
			}}
		}
	default:
		err = decodeEvent([]byte(p), id, &e)
	}
	if err != nil {
		h.log.Warn("hub: undecodable event", "channel", m.Channel, "err", err)
		return
	}
	if commit != nil && h.onCommit != nil {
		h.onCommit(*commit)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fanOut(m.Channel, &e, time.Now())
}

// fanOut passes e on to channel's subscribers, unless an event as new was
// passed on already (a resync's read and the live publication of the same
// event, in either order). Under h.mu.
func (h *Hub) fanOut(channel string, e *match.Event, now time.Time) {
	set := h.subs[channel]
	if set == nil {
		return
	}
	h.heard[channel] = now
	if e.Seq > 0 { // seq 0: a notice, outside the sequence
		if e.Seq <= h.last[channel] {
			return
		}
		h.last[channel] = e.Seq
	}
	for sub := range set {
		select {
		case sub.ch <- e:
		default: // too slow: it catches up from the stream
			h.closeSub(sub)
			delete(set, sub)
		}
	}
}

// resyncLoop checks the quiet channels every Resync until ctx ends.
func (h *Hub) resyncLoop(ctx context.Context) {
	t := time.NewTicker(h.Resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := h.ResyncNow(ctx, h.Resync); err != nil && ctx.Err() == nil {
			h.log.Warn("hub: resync", "err", err)
		}
	}
}

// lastEventScript: KEYS the match's events. The last event, nil if none.
var lastEventScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok == 'stream' then
  local r = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #r == 0 then return false end
  local fv = r[1][2]
  for i = 1, #fv, 2 do if fv[i] == 'e' then return fv[i + 1] end end
  return false
end
return redis.call('LINDEX', KEYS[1], -1)
`)

// ResyncNow reads, in one pipeline, the last event of every followed
// match with no news for quiet, and passes on those newer than the hub
// saw. The hub runs it every Resync; exported for tests.
func (h *Hub) ResyncNow(ctx context.Context, quiet time.Duration) error {
	now := time.Now()
	var channels []string
	h.mu.Lock()
	for ch, set := range h.subs {
		if len(set) > 0 && h.ready[ch] && now.Sub(h.heard[ch]) >= quiet {
			channels = append(channels, ch)
		}
	}
	h.mu.Unlock()
	if len(channels) == 0 {
		return nil
	}
	read := func(full bool) ([]*redis.Cmd, error) {
		cmds := make([]*redis.Cmd, len(channels))
		_, err := h.s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, ch := range channels {
				keys := []string{h.s.eventsKey(h.s.matchOf(ch))}
				if full {
					cmds[i] = lastEventScript.Eval(ctx, p, keys)
				} else {
					cmds[i] = lastEventScript.EvalSha(ctx, p, keys)
				}
			}
			return nil
		})
		return cmds, err
	}
	cmds, err := read(false)
	for _, c := range cmds {
		if c != nil && redis.HasErrorPrefix(c.Err(), "NOSCRIPT") { // a restarted or promoted server
			cmds, err = read(true)
			break
		}
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read last events: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, ch := range channels {
		if _, ok := h.subs[ch]; !ok {
			continue
		}
		h.heard[ch] = now
		b, err := cmds[i].Text()
		if err != nil { // redis.Nil: no event yet
			continue
		}
		var e match.Event
		if err := decodeEvent([]byte(b), h.s.matchOf(ch), &e); err != nil {
			h.log.Warn("hub: undecodable event", "channel", ch, "err", err)
			continue
		}
		if e.Seq > h.last[ch] {
			h.log.Debug("hub: resync found a newer event", "channel", ch, "seq", e.Seq, "seen", h.last[ch])
			h.fanOut(ch, &e, now)
		}
	}
	return nil
}

// decodeCommit decodes the state line and ply lines of a published commit
// in JSON.
func decodeCommit(version int64, rest string) (*match.State, []match.PlyRecord, error) {
	lines := strings.Split(rest, "\n")
	st := &match.State{}
	if err := json.Unmarshal([]byte(lines[0]), st); err != nil {
		return nil, nil, fmt.Errorf("published state: %w", err)
	}
	st.Version = version
	plies := make([]match.PlyRecord, len(lines)-1)
	for i, l := range lines[1:] {
		if err := json.Unmarshal([]byte(l), &plies[i]); err != nil {
			return nil, nil, fmt.Errorf("published ply: %w", err)
		}
	}
	return st, plies, nil
}

func (h *Hub) closeSub(sub *hubSub) {
	if !sub.closed {
		sub.closed = true
		close(sub.ch)
	}
}

// Subscribe implements match.Hub. It returns once Redis has confirmed the
// channel's subscription, so every event published afterwards arrives (on
// a Redis Cluster, the subscription is on the match's primary, where its
// commits publish).
func (h *Hub) Subscribe(ctx context.Context, id string) (<-chan *match.Event, func(), error) {
	channel := h.s.Channel(id)
	// Of pointers: a buffer of 32 Events (136 bytes each) was 4 KB a
	// subscriber, most of a connected player's heap.
	sub := &hubSub{ch: make(chan *match.Event, h.bufLen)}
	h.mu.Lock()
	set := h.subs[channel]
	first := set == nil
	if first {
		set = map[*hubSub]struct{}{}
		h.subs[channel] = set
		h.heard[channel] = time.Now()
		if h.followed != nil {
			h.followed[hashSlot(channel)]++
		}
	}
	set[sub] = struct{}{}
	var wait chan struct{}
	if !h.ready[channel] {
		wait = make(chan struct{})
		h.waiting[channel] = append(h.waiting[channel], wait)
	}
	h.mu.Unlock()
	bg := context.WithoutCancel(ctx)
	cancel := func() { h.unsubscribe(bg, channel, sub) }
	if first {
		if err := h.subscribe(ctx, channel); err != nil {
			cancel()
			return nil, nil, fmt.Errorf("subscribe %s: %w", channel, err)
		}
	}
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			cancel()
			return nil, nil, ctx.Err()
		}
	}
	return sub.ch, cancel, nil
}

func (h *Hub) unsubscribe(ctx context.Context, channel string, sub *hubSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.subs[channel]
	if _, ok := set[sub]; ok {
		delete(set, sub)
		h.closeSub(sub)
	}
	if len(set) == 0 && h.subs[channel] != nil {
		delete(h.subs, channel)
		delete(h.ready, channel)
		delete(h.last, channel)
		delete(h.heard, channel)
		// Sent under the lock, so it goes out on the connection before any
		// later SUBSCRIBE of the same channel.
		if err := h.unsubscribeLocked(ctx, channel); err != nil && !strings.Contains(err.Error(), "closed") {
			h.log.Warn("hub: unsubscribe", "channel", channel, "err", err)
		}
	}
}

// subscribe subscribes the hub to channel.
func (h *Hub) subscribe(ctx context.Context, channel string) error {
	if !h.s.sharded() {
		return h.ps.Subscribe(ctx, channel)
	}
	slot := hashSlot(channel)
	h.mu.Lock()
	ps, fresh := h.shard(slot)
	h.mu.Unlock()
	if ps == nil {
		return redis.ErrClosed
	}
	err := ps.SSubscribe(ctx, channel)
	if fresh {
		h.read(slot, ps)
	}
	return err
}

// unsubscribeLocked unsubscribes the hub from channel. Under h.mu.
func (h *Hub) unsubscribeLocked(ctx context.Context, channel string) error {
	if !h.s.sharded() {
		return h.ps.Unsubscribe(ctx, channel)
	}
	slot := hashSlot(channel)
	ps := h.shards[slot]
	if h.followed[slot]--; h.followed[slot] <= 0 {
		delete(h.followed, slot)
		if ps != nil {
			delete(h.shards, slot)
			return ps.Close() // its reader ends
		}
	}
	if ps == nil {
		return nil // lost: it is subscribed again without the channel
	}
	h.unsubbing[channel]++
	return ps.SUnsubscribe(ctx, channel)
}
