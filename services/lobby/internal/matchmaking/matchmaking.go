// Package matchmaking pairs players by rating through queues in Redis that
// every lobby instance shares.
//
// A player holds at most one ticket per queue (game, variant, clock,
// rated). Every instance runs pairing waves: it reads a queue, chooses
// pairs that minimise the rating difference within each ticket's window
// (±100 widening to ±400 over 30 s by default), and claims them: a Lua
// script takes a pair out of the queue only if both tickets are still
// there, then each player is marked busy (only where no mark is: the one
// live match per player, busy.go) and their tickets in other queues are
// withdrawn. Two instances racing on one queue can never pair a player
// twice: one claim takes the tickets, the other finds them gone; two
// claims of one player in two queues meet at the busy mark, and the loser
// puts its other ticket back. The claiming instance then creates the match
// (idempotently, on the pair id) and publishes the result; the owner of
// each ticket, on whatever instance, learns it through one Pub/Sub
// subscription per instance. A queue's keys and a player's keys each carry
// their own hash tag (scripts.go), so on Redis Cluster matchmaking spreads
// over the primaries.
//
// A ticket lives as long as its owner heartbeats it (Watch does); a ticket
// whose owner vanished expires after TicketTTL and the next wave drops it.
package matchmaking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Errors a ticket can end with, besides a match.
var (
	// ErrExpired: the ticket's owner stopped heartbeating it.
	ErrExpired = errors.New("ticket expired")
	// ErrMatchFailed: a pair was found but the match could not be created;
	// queue again.
	ErrMatchFailed = errors.New("match could not be created")
)

// Queue names a queue: players in one queue may be paired together.
type Queue struct {
	Game    engine.Game
	Variant string
	Clock   lobby.TimeControl
	Rated   bool
}

// String returns the queue's key, e.g. "quoridor/standard/180000+2000/rated".
func (q Queue) String() string {
	kind := "casual"
	if q.Rated {
		kind = "rated"
	}
	return string(q.Game) + "/" + q.Variant + "/" + q.Clock.String() + "/" + kind
}

// parseQueue is the inverse of Queue.String.
func parseQueue(s string) (Queue, error) {
	f := strings.Split(s, "/")
	if len(f) != 4 {
		return Queue{}, fmt.Errorf("malformed queue %q", s)
	}
	q := Queue{Game: engine.Game(f[0]), Variant: f[1], Rated: f[3] == "rated"}
	if f[2] != "none" {
		if _, err := fmt.Sscanf(f[2], "%d+%d", &q.Clock.BaseMS, &q.Clock.IncrementMS); err != nil {
			return Queue{}, fmt.Errorf("malformed queue %q: %w", s, err)
		}
	}
	return q, nil
}

// Window is how far apart two ratings may be, widening with the wait.
type Window struct {
	Start float64       // half-width at once, default 100
	Max   float64       // half-width after Widen, default 400
	Widen time.Duration // time to grow from Start to Max, default 30 s
}

// At returns the half-width after waiting for waited.
func (w Window) At(waited time.Duration) float64 {
	if waited <= 0 {
		return w.Start
	}
	if waited >= w.Widen {
		return w.Max
	}
	return w.Start + (w.Max-w.Start)*float64(waited)/float64(w.Widen)
}

// Config tunes the matchmaker. The zero value of a field takes its default.
type Config struct {
	Prefix        string        // key prefix, default "tabuleiro:lobby:"
	Window        Window        // default ±100 → ±400 over 30 s
	TicketTTL     time.Duration // a ticket not heartbeated for this long expires, default 15 s
	WaveInterval  time.Duration // pause between waves when nothing kicks one, default 50 ms
	UpdateEvery   time.Duration // how often Watch reports a wider window, default 1 s
	BotOfferAfter time.Duration // Watch offers a bot after this wait, default 20 s
	ResultTTL     time.Duration // how long a ticket's result is kept, default 2 min
	// MatchWorkers is how many matches one wave creates at once, default 16.
	MatchWorkers int
	// PendingTTL is how long a player stays marked busy while their match
	// is being created, default 1 min; BusyTTL how long once it exists,
	// default 24 h (see Reserve).
	PendingTTL time.Duration
	BusyTTL    time.Duration
	// LiveMatches lists the ids of a player's live matches (the match
	// service's ListMatches), only among matchIDs when given; it lets a
	// busy mark of an ended match be cleared. Nil keeps marks until
	// BusyTTL.
	LiveMatches func(ctx context.Context, playerID string, matchIDs ...string) ([]string, error)
	// ConcurrentMatches lets a player hold several live matches from rooms
	// and bot games: Reserve then marks nobody. The one-process mode sets
	// it, where one person keeps resumable games against bots and at one
	// keyboard. Queue pairing still marks players (one queued game at a
	// time), and Confirm and Release still swap those marks.
	ConcurrentMatches bool
	Now               func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = "tabuleiro:lobby:"
	}
	if c.Window == (Window{}) {
		c.Window = Window{Start: 100, Max: 400, Widen: 30 * time.Second}
	}
	if c.TicketTTL == 0 {
		c.TicketTTL = 15 * time.Second
	}
	if c.WaveInterval == 0 {
		c.WaveInterval = 50 * time.Millisecond
	}
	if c.UpdateEvery == 0 {
		c.UpdateEvery = time.Second
	}
	if c.BotOfferAfter == 0 {
		c.BotOfferAfter = 20 * time.Second
	}
	if c.ResultTTL == 0 {
		c.ResultTTL = 2 * time.Minute
	}
	if c.MatchWorkers == 0 {
		c.MatchWorkers = 16
	}
	if c.PendingTTL == 0 {
		c.PendingTTL = time.Minute
	}
	if c.BusyTTL == 0 {
		c.BusyTTL = 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Ticket is one player waiting in one queue.
type Ticket struct {
	ID         string
	Queue      Queue
	Player     lobby.Player // Rating is the rating the pairing uses
	EnqueuedAt time.Time
}

// Matched is a ticket's pairing.
type Matched struct {
	MatchID  string            `json:"match_id"`
	Seat     engine.Seat       `json:"seat"`
	Opponent lobby.Participant `json:"opponent"`
	PairID   string            `json:"pair_id"`
}

// Matchmaker enqueues tickets and runs pairing waves.
type Matchmaker struct {
	rdb     redis.UniversalClient
	cfg     Config
	lookup  lobby.VariantLookup
	matches lobby.MatchCreator
	kick    chan struct{}

	mu      sync.Mutex
	waiters map[string]chan struct{} // by ticket id
}

// New returns a matchmaker. Call Run to pair and to deliver results.
func New(rdb redis.UniversalClient, lookup lobby.VariantLookup, matches lobby.MatchCreator, cfg Config) *Matchmaker {
	cfg = cfg.withDefaults()
	return &Matchmaker{
		rdb: rdb, cfg: cfg, lookup: lookup, matches: matches,
		kick: make(chan struct{}, 1), waiters: map[string]chan struct{}{},
	}
}

// Config returns the matchmaker's configuration, defaults filled in.
func (m *Matchmaker) Config() Config { return m.cfg }

func (m *Matchmaker) value(t Ticket, expires time.Time) string {
	return t.ID + "|" + strconv.FormatInt(t.EnqueuedAt.UnixMilli(), 10) + "|" +
		strconv.FormatInt(expires.UnixMilli(), 10) + "|" + t.Player.DisplayName
}

// Enqueue validates the queue and puts the player's ticket in it,
// replacing any ticket the player held in the same queue (whose Watch then
// ends with lobby.ErrReplaced). A zero clock takes the variant's default.
func (m *Matchmaker) Enqueue(ctx context.Context, q Queue, p lobby.Player) (Ticket, error) {
	v, err := lobby.CheckVariant(m.lookup, q.Game, q.Variant, q.Clock, q.Rated)
	if err != nil {
		return Ticket{}, err
	}
	if v.Players != 2 {
		return Ticket{}, lobby.Invalid("variant", "%s/%s is for one player", q.Game, q.Variant)
	}
	q.Variant = v.ID // "" is the default variant
	if q.Clock.None() {
		q.Clock = lobby.TimeControl{BaseMS: v.DefaultBaseMS, IncrementMS: v.DefaultIncrementMS}
	}
	now := m.cfg.Now()
	t := Ticket{ID: lobby.NewID("t_"), Queue: q, Player: p, EnqueuedAt: now}
	// The trace context goes first: a wave on any instance may pair the
	// ticket as soon as the script has queued it.
	m.saveTrace(ctx, t)
	qk := q.String()
	var got string
	for attempt := 0; ; attempt++ {
		var err error
		got, err = registerScript.Run(ctx, m.rdb, []string{m.playerKey(p.ID, "busy"), m.playerKey(p.ID, "pq")},
			qk, t.ID, m.resPrefix(p.ID), m.cfg.ResultTTL.Milliseconds(), m.eventsChannel()).Text()
		if err != nil {
			return Ticket{}, fmt.Errorf("enqueue %s: %w", q, err)
		}
		if got == "" || got == "done" {
			break
		}
		cleared, err := m.clearIfEnded(ctx, p.ID, got)
		if err != nil {
			return Ticket{}, err
		}
		if !cleared || attempt > 0 {
			return Ticket{}, busyError(p.ID, got)
		}
	}
	if got == "" {
		n, err := queueScript.Run(ctx, m.rdb, []string{m.queueKey(qk, "t"), m.queueKey(qk, "q")}, p.ID, p.Rating,
			m.value(t, now.Add(m.cfg.TicketTTL))).Int()
		if err == nil {
			err = m.listQueue(ctx, qk, n)
		}
		if err != nil {
			return Ticket{}, fmt.Errorf("enqueue %s: %w", q, err)
		}
	}
	select {
	case m.kick <- struct{}{}:
	default:
	}
	return t, nil
}

// Heartbeat keeps a ticket alive for another TicketTTL. It returns false
// when the ticket is gone (paired, replaced, cancelled or expired).
func (m *Matchmaker) Heartbeat(ctx context.Context, t Ticket) (bool, error) {
	n, err := heartbeatScript.Run(ctx, m.rdb, []string{m.queueKey(t.Queue.String(), "t")}, t.Player.ID, t.ID,
		m.value(t, m.cfg.Now().Add(m.cfg.TicketTTL))).Int()
	if err != nil {
		return false, fmt.Errorf("heartbeat ticket %s: %w", t.ID, err)
	}
	return n == 1, nil
}

// Cancel removes a ticket. It returns false when the ticket was already
// gone, for instance paired a moment ago: then its result stands.
func (m *Matchmaker) Cancel(ctx context.Context, t Ticket) (bool, error) {
	qk := t.Queue.String()
	n, err := unqueueScript.Run(ctx, m.rdb, []string{m.queueKey(qk, "t"), m.queueKey(qk, "q")}, t.Player.ID, t.ID).Int()
	if err == nil {
		// Also when a pairing took it a moment ago: if that pairing
		// puts it back (its partner was busy), it finds it cancelled.
		err = m.endTicket(ctx, t.Player.ID, qk, t.ID, "")
	}
	if err != nil {
		return false, fmt.Errorf("cancel ticket %s: %w", t.ID, err)
	}
	return n == 1, nil
}

// endTicket ends a player's ticket that is out of its queue: it is no
// longer theirs there and, unless result is "", gets result.
func (m *Matchmaker) endTicket(ctx context.Context, player, qk, ticketID, result string) error {
	return endTicketScript.Run(ctx, m.rdb, []string{m.playerKey(player, "pq")}, qk, ticketID, m.resPrefix(player),
		result, m.cfg.ResultTTL.Milliseconds(), m.eventsChannel()).Err()
}

// Result returns a ticket's outcome: a Matched, or nil and nil while it
// waits (or while its pair's match is being created), or an error:
// lobby.ErrReplaced, ErrExpired, ErrMatchFailed.
func (m *Matchmaker) Result(ctx context.Context, t Ticket) (*Matched, error) {
	ticketID := t.ID
	v, err := m.rdb.Get(ctx, m.resPrefix(t.Player.ID)+ticketID).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ticket %s result: %w", ticketID, err)
	}
	switch {
	case v == "replaced":
		return nil, fmt.Errorf("ticket %s: a newer ticket of the same player and queue: %w", ticketID, lobby.ErrReplaced)
	case v == "elsewhere":
		return nil, fmt.Errorf("ticket %s: paired in another queue: %w", ticketID, lobby.ErrReplaced)
	case v == "started":
		return nil, fmt.Errorf("ticket %s: withdrawn, you started another match: %w", ticketID, lobby.ErrReplaced)
	case strings.HasPrefix(v, "busy|"):
		f := strings.SplitN(v, "|", 3) // busy|<player>|<mark>
		if len(f) == 3 {
			return nil, fmt.Errorf("ticket %s: %w", ticketID, busyError(f[1], f[2]))
		}
	case v == "expired":
		return nil, fmt.Errorf("ticket %s: %w", ticketID, ErrExpired)
	case v == "failed":
		return nil, fmt.Errorf("ticket %s: %w", ticketID, ErrMatchFailed)
	case strings.HasPrefix(v, "paired|"):
		return nil, nil
	case strings.HasPrefix(v, "matched|"):
		var mt Matched
		if err := json.Unmarshal([]byte(v[len("matched|"):]), &mt); err != nil {
			return nil, fmt.Errorf("ticket %s result: %w", ticketID, err)
		}
		return &mt, nil
	}
	return nil, fmt.Errorf("ticket %s: unknown result %q", ticketID, v)
}

// snapshotTicket is a ticket as a wave reads it.
type snapshotTicket struct {
	player  string
	value   string   // as queued
	newer   []string // tickets that replaced it once a pairing took it (seat)
	id      string
	name    string
	rating  float64
	enq     time.Time
	expires time.Time
}

type pair struct{ a, b int }

// choosePairs returns the pairs of one queue's tickets (sorted by rating)
// that minimise rating differences greedily: edges between near neighbours
// that both tickets' windows accept, smallest difference first (ties: the
// longer combined wait first). In a casual queue a ticket that has waited
// the whole widening time accepts anyone.
func choosePairs(ts []snapshotTicket, now time.Time, w Window, rated bool) []pair {
	const neighbours = 8
	type edge struct {
		a, b   int
		diff   float64
		waited time.Duration
	}
	var edges []edge
	win := make([]float64, len(ts))
	open := make([]bool, len(ts))
	for i, t := range ts {
		win[i] = w.At(now.Sub(t.enq))
		open[i] = !rated && now.Sub(t.enq) >= w.Widen
	}
	for i := range ts {
		for j := i + 1; j < len(ts) && j <= i+neighbours; j++ {
			d := ts[j].rating - ts[i].rating
			if d > w.Max && !(open[i] || open[j]) {
				break
			}
			if d <= math.Min(win[i], win[j]) || open[i] || open[j] {
				edges = append(edges, edge{i, j, d, now.Sub(ts[i].enq) + now.Sub(ts[j].enq)})
			}
		}
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if x.diff != y.diff {
			if x.diff < y.diff {
				return -1
			}
			return 1
		}
		return int(y.waited - x.waited)
	})
	taken := make([]bool, len(ts))
	var pairs []pair
	for _, e := range edges {
		if !taken[e.a] && !taken[e.b] {
			taken[e.a], taken[e.b] = true, true
			pairs = append(pairs, pair{e.a, e.b})
		}
	}
	return pairs
}

// WaveStats counts what a wave did.
type WaveStats struct {
	Queues  int // queues read
	Tickets int // live tickets seen
	Pairs   int // pairs claimed (and matches created or failed)
	Expired int // expired tickets seen
}

// Wave runs one pairing wave over every non-empty queue.
func (m *Matchmaker) Wave(ctx context.Context) (WaveStats, error) {
	// Listing the queues is idle polling (every WaveInterval): untraced;
	// pairing the tickets found is traced.
	queues, err := m.rdb.SMembers(telemetry.Untraced(ctx), m.queuesKey()).Result()
	if err != nil {
		return WaveStats{}, fmt.Errorf("list queues: %w", err)
	}
	ctx = telemetry.Traced(ctx)
	var st WaveStats
	for _, qk := range queues {
		s, err := m.waveQueue(ctx, qk)
		if err != nil {
			return st, err
		}
		st.Queues++
		st.Tickets += s.Tickets
		st.Pairs += s.Pairs
		st.Expired += s.Expired
	}
	return st, nil
}

const claimBatch = 256

func (m *Matchmaker) waveQueue(ctx context.Context, qk string) (WaveStats, error) {
	q, err := parseQueue(qk)
	if err != nil {
		return WaveStats{}, err
	}
	tk, zk := m.queueKey(qk, "t"), m.queueKey(qk, "q")
	var zs *redis.ZSliceCmd
	var hs *redis.MapStringStringCmd
	if _, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		zs = p.ZRangeWithScores(ctx, zk, 0, -1)
		hs = p.HGetAll(ctx, tk)
		return nil
	}); err != nil {
		return WaveStats{}, fmt.Errorf("read queue %s: %w", qk, err)
	}
	if len(zs.Val()) == 0 {
		return WaveStats{}, m.dropQueue(ctx, qk)
	}
	now := m.cfg.Now()
	vals := hs.Val()
	live := make([]snapshotTicket, 0, len(zs.Val()))
	var expired []snapshotTicket
	for _, z := range zs.Val() {
		player := z.Member.(string)
		f := strings.SplitN(vals[player], "|", 4)
		if len(f) != 4 {
			continue // enqueued between the two reads; next wave
		}
		enq, _ := strconv.ParseInt(f[1], 10, 64)
		exp, _ := strconv.ParseInt(f[2], 10, 64)
		t := snapshotTicket{player: player, value: vals[player], id: f[0], name: f[3], rating: z.Score,
			enq: time.UnixMilli(enq), expires: time.UnixMilli(exp)}
		if t.expires.Before(now) {
			expired = append(expired, t)
			continue
		}
		live = append(live, t)
	}
	metrics.queueSize.Record(ctx, int64(len(live)), queueAttr(qk))
	pairs := choosePairs(live, now, m.cfg.Window, q.Rated)
	st := WaveStats{Tickets: len(live), Expired: len(expired)}
	for start := 0; start < len(pairs) || start == 0; start += claimBatch {
		batch := pairs[start:min(start+claimBatch, len(pairs))]
		args := []any{m.queueKey(qk, "taken:"), now.UnixMilli(), takenTTL, len(batch)}
		ids := make([]string, len(batch))
		for i, p := range batch {
			ids[i] = lobby.NewID("pair_")
			a, b := live[p.a], live[p.b]
			args = append(args, a.player, a.id, b.player, b.id, ids[i])
		}
		var exp []snapshotTicket
		if start == 0 {
			exp = expired
		}
		if len(batch) == 0 && len(exp) == 0 {
			break // nothing to claim
		}
		args = append(args, len(exp))
		for _, t := range exp {
			args = append(args, t.player, t.id)
		}
		res, err := takeScript.Run(ctx, m.rdb, []string{tk, zk}, args...).Slice()
		if err != nil {
			return st, fmt.Errorf("claim pairs in %s: %w", qk, err)
		}
		claimed, gone := indexes(res, 0), indexes(res, 1)
		for _, k := range gone {
			t := exp[k-1]
			if err := m.endTicket(ctx, t.player, qk, t.id, "expired"); err != nil {
				return st, fmt.Errorf("expire ticket %s: %w", t.id, err)
			}
		}
		var wg sync.WaitGroup
		var seatedPairs atomic.Int64
		sem := make(chan struct{}, m.cfg.MatchWorkers)
		for _, k := range claimed {
			p := batch[k-1]
			id := ids[k-1]
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				a, b := live[p.a], live[p.b]
				seated, err := m.seat(ctx, qk, id, &a, &b)
				if err != nil || !seated {
					return
				}
				seatedPairs.Add(1)
				m.createMatch(ctx, q, qk, id, a, b)
			})
		}
		wg.Wait()
		st.Pairs += int(seatedPairs.Load())
	}
	return st, nil
}

// indexes reads the i-th list of takeScript's reply.
func indexes(res []any, i int) []int64 {
	if i >= len(res) {
		return nil
	}
	l, _ := res[i].([]any)
	out := make([]int64, 0, len(l))
	for _, v := range l {
		if n, ok := v.(int64); ok {
			out = append(out, n)
		}
	}
	return out
}

// listQueue lists a queue whose size became n by adding a ticket: the
// ticket that makes a queue non-empty lists it. A queue already listed
// stays so while it holds tickets (dropQueue).
func (m *Matchmaker) listQueue(ctx context.Context, qk string, n int) error {
	if n != 1 {
		return nil
	}
	return m.rdb.SAdd(ctx, m.queuesKey(), qk).Err()
}

// dropQueue takes a queue a wave found empty off the list of queues, and
// puts it back if a ticket came meanwhile: a ticket that makes a queue
// non-empty lists it after it is in, so either the second look sees the
// ticket or the queue is listed again after it was taken off.
func (m *Matchmaker) dropQueue(ctx context.Context, qk string) error {
	if err := m.rdb.SRem(ctx, m.queuesKey(), qk).Err(); err != nil {
		return fmt.Errorf("drop empty queue %s: %w", qk, err)
	}
	n, err := m.rdb.ZCard(ctx, m.queueKey(qk, "q")).Result()
	if err == nil && n > 0 {
		err = m.rdb.SAdd(ctx, m.queuesKey(), qk).Err()
	}
	if err != nil {
		return fmt.Errorf("drop empty queue %s: %w", qk, err)
	}
	return nil
}

// seat takes a pair a claim took out of its queue to its match: it marks
// both players busy and ends their tickets (the pair's with "paired",
// their others in every queue with "elsewhere"). When one of them is busy
// with another match (a room or a bot game started meanwhile, or a claim
// in another queue that got there first), that ticket ends with the other
// match and the other ticket goes back in the queue: seat reports false.
func (m *Matchmaker) seat(ctx context.Context, qk, pairID string, a, b *snapshotTicket) (bool, error) {
	ctx = context.WithoutCancel(ctx) // the tickets are out of the queue: finish
	mark := "pending|pair-" + pairID
	var busy *snapshotTicket
	var other string
	var err error
	for _, t := range []*snapshotTicket{a, b} {
		if other, err = m.mark(ctx, t.player, mark); err != nil || other != "" {
			busy = t
			break
		}
	}
	if busy == nil {
		for _, t := range []*snapshotTicket{a, b} {
			t.newer, err = m.withdraw(ctx, t.player, qk, t.id, "paired|"+pairID, "elsewhere")
			if err != nil {
				return false, err
			}
		}
		return true, nil
	}
	// Put back the tickets of the players not busy elsewhere, dropping
	// this pairing's mark where it was set (Release changes only that
	// mark, so it is safe for a player it never reached).
	undo := []error{err}
	for _, t := range []*snapshotTicket{a, b} {
		if err == nil && t == busy {
			result := "busy|" + t.player + "|" + other
			if strings.HasPrefix(other, "pending|pair-") {
				result = "elsewhere" // paired in another queue a moment ago
			}
			undo = append(undo, m.endTicket(ctx, t.player, qk, t.id, result))
			continue
		}
		undo = append(undo, m.Release(ctx, "pair-"+pairID, t.player))
		// Unless its owner cancelled it meanwhile (or replaced it).
		id, err := m.rdb.HGet(ctx, m.playerKey(t.player, "pq"), qk).Result()
		if errors.Is(err, redis.Nil) || err == nil && id != t.id {
			continue
		}
		if err != nil {
			undo = append(undo, err)
			continue
		}
		n, err := restoreScript.Run(ctx, m.rdb, []string{m.queueKey(qk, "t"), m.queueKey(qk, "q")}, t.player, t.rating, t.value).Int()
		if err == nil {
			err = m.listQueue(ctx, qk, n)
		}
		undo = append(undo, err)
	}
	if err := errors.Join(undo...); err != nil {
		return false, fmt.Errorf("seat pair %s: %w", pairID, err)
	}
	return false, nil
}

// createMatch creates the match of a claimed pair and publishes it to both
// tickets. White is drawn at random (Q5: random outside rooms).
func (m *Matchmaker) createMatch(ctx context.Context, q Queue, qk, pairID string, a, b snapshotTicket) {
	if rand.IntN(2) == 1 {
		a, b = b, a
	}
	pa := lobby.Participant{PlayerID: a.player, DisplayName: a.name}
	pb := lobby.Participant{PlayerID: b.player, DisplayName: b.name}
	if q.Rated {
		pa.Rating, pb.Rating = a.rating, b.rating
	}
	spec := lobby.MatchSpec{RequestID: "pair-" + pairID, Game: q.Game, Variant: q.Variant,
		Clock: q.Clock, Rated: q.Rated, First: pa, Second: pb}
	ctx = context.WithoutCancel(ctx) // the pair is claimed: finish it
	observePair(ctx, qk, m.cfg.Now(), a, b)
	ctx, span := m.pairSpan(ctx, qk, a, b)
	defer span.End()
	matchID, err := m.matches.CreateMatch(ctx, spec)
	if err == nil {
		_ = m.Confirm(ctx, spec.RequestID, matchID, a.player, b.player)
	} else {
		_ = m.Release(ctx, spec.RequestID, a.player, b.player)
	}
	ttl := m.cfg.ResultTTL
	_, perr := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, side := range []struct {
			t    snapshotTicket
			seat engine.Seat
			opp  lobby.Participant
		}{{a, engine.First, pb}, {b, engine.Second, pa}} {
			v := "failed"
			if err == nil {
				js, _ := json.Marshal(Matched{MatchID: matchID, Seat: side.seat, Opponent: side.opp, PairID: pairID})
				v = "matched|" + string(js)
			}
			for _, id := range append([]string{side.t.id}, side.t.newer...) {
				p.Set(ctx, m.resPrefix(side.t.player)+id, v, ttl)
				p.Publish(ctx, m.eventsChannel(), id)
			}
		}
		return nil
	})
	_ = perr // a lost result shows as the ticket waiting until its owner gives up
}

// Run runs pairing waves (every WaveInterval, and at once after a local
// Enqueue) and delivers results to local Watch calls, until ctx ends.
func (m *Matchmaker) Run(ctx context.Context) error {
	if _, err := m.AdoptLegacyMarks(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	sub := m.rdb.Subscribe(ctx, m.eventsChannel())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		return fmt.Errorf("subscribe to matchmaking events: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		ch := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case msg, ok := <-ch:
				if !ok {
					return
				}
				m.notify(msg.Payload)
			}
		}
	})
	tick := time.NewTicker(m.cfg.WaveInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-m.kick:
		case <-tick.C:
		}
		if _, err := m.Wave(ctx); err != nil && ctx.Err() == nil {
			// A failed wave is retried by the next one; pairing state is
			// all in Redis, so nothing is lost.
			continue
		}
	}
}

func (m *Matchmaker) register(ticketID string) chan struct{} {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	m.waiters[ticketID] = ch
	m.mu.Unlock()
	return ch
}

func (m *Matchmaker) unregister(ticketID string) {
	m.mu.Lock()
	delete(m.waiters, ticketID)
	m.mu.Unlock()
}

func (m *Matchmaker) notify(ticketID string) {
	m.mu.Lock()
	ch := m.waiters[ticketID]
	m.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Update is one step of a ticket's progress reported by Watch.
type Update struct {
	// Window is the rating window's half-width now, Waited the wait so far.
	Window float64
	Waited time.Duration
	// BotOffered is set once, when the ticket has waited BotOfferAfter.
	BotOffered bool
}

// Watch keeps a ticket alive and reports its progress to onUpdate (a wider
// window every UpdateEvery, a bot offer once if offerBot) until it is
// matched. When ctx ends first (the client went away), the ticket is
// cancelled and ctx's error returned. Run must be running on this instance
// for results to arrive promptly; Watch also polls every UpdateEvery.
func (m *Matchmaker) Watch(ctx context.Context, t Ticket, offerBot bool, onUpdate func(Update) error) (*Matched, error) {
	wake := m.register(t.ID)
	defer m.unregister(t.ID)
	hb := time.NewTicker(max(m.cfg.TicketTTL/3, time.Millisecond))
	defer hb.Stop()
	step := time.NewTicker(m.cfg.UpdateEvery)
	defer step.Stop()
	offered := false
	gone := 0
	lastWindow := m.cfg.Window.Start
	for {
		if ctx.Err() != nil {
			return m.abandon(ctx, t)
		}
		res, err := m.Result(ctx, t)
		if ctx.Err() != nil {
			return m.abandon(ctx, t)
		}
		if res != nil || err != nil {
			return res, err
		}
		select {
		case <-ctx.Done():
			return m.abandon(ctx, t)
		case <-wake:
		case <-hb.C:
			queued, err := m.Heartbeat(ctx, t)
			if err != nil {
				return nil, err
			}
			// Out of its queue with no result at all (not even "paired",
			// which stays while the match is being created): a pairing
			// took the ticket and its instance died before ending it.
			// Two beats in a row, since a pairing ends its tickets within
			// milliseconds of taking them.
			gone, err = m.lost(ctx, t, queued, gone)
			if err != nil {
				return nil, err
			}
			if gone >= 2 {
				return nil, fmt.Errorf("ticket %s: taken out of its queue and never paired: %w", t.ID, ErrMatchFailed)
			}
		case <-step.C:
			waited := m.cfg.Now().Sub(t.EnqueuedAt)
			u := Update{Window: m.cfg.Window.At(waited), Waited: waited}
			if offerBot && !offered && waited >= m.cfg.BotOfferAfter {
				u.BotOffered, offered = true, true
			}
			if u.Window > lastWindow || u.BotOffered {
				lastWindow = u.Window
				if err := onUpdate(u); err != nil {
					return nil, err
				}
			}
		}
	}
}

// lost counts the heartbeats in a row that found t out of its queue with
// no result: 0 when queued, else gone+1 or 0.
func (m *Matchmaker) lost(ctx context.Context, t Ticket, queued bool, gone int) (int, error) {
	if queued {
		return 0, nil
	}
	n, err := m.rdb.Exists(ctx, m.resPrefix(t.Player.ID)+t.ID).Result()
	if err != nil {
		return gone, fmt.Errorf("ticket %s result: %w", t.ID, err)
	}
	if n > 0 {
		return 0, nil
	}
	return gone + 1, nil
}

// abandon cancels the ticket of a Watch whose client went away. A pair
// claimed just before the cancel stands and is reported.
func (m *Matchmaker) abandon(ctx context.Context, t Ticket) (*Matched, error) {
	bg := context.WithoutCancel(ctx)
	if _, err := m.Cancel(bg, t); err != nil {
		return nil, errors.Join(ctx.Err(), err)
	}
	if res, err := m.Result(bg, t); res != nil || err != nil {
		return res, err
	}
	return nil, ctx.Err()
}
