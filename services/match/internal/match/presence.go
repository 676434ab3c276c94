package match

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"tabuleiro.dev/pkg/engine"
)

// Lease is a connected seat's presence: the instance that holds the seat's
// stream renews it every LeaseRenew; when that instance dies (kill -9, a
// partition), the lease lapses after LeaseTTL and any instance's sweep
// starts the seat's reconnection window, exactly as if the stream had
// closed. A lease names its stream's epoch, so a lapsed lease of an old
// stream never disconnects a newer one.
type Lease struct {
	MatchID string
	Seat    engine.Seat
	Epoch   int64
}

// String is the lease's member name in the Store: "id|seat|epoch".
func (l Lease) String() string {
	return l.MatchID + "|" + strconv.Itoa(int(l.Seat)) + "|" + strconv.FormatInt(l.Epoch, 10)
}

// ParseLease is the inverse of Lease.String.
func ParseLease(s string) (Lease, error) {
	parts := strings.Split(s, "|")
	if len(parts) != 3 {
		return Lease{}, fmt.Errorf("lease %q: %w", s, ErrInvalid)
	}
	seat, err1 := strconv.Atoi(parts[1])
	epoch, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err := errors.Join(err1, err2); err != nil || parts[0] == "" {
		return Lease{}, fmt.Errorf("lease %q: %w", s, ErrInvalid)
	}
	return Lease{MatchID: parts[0], Seat: engine.Seat(seat), Epoch: epoch}, nil
}

// Watchers are the open Watch streams of one match on one instance: they
// count as spectators while the instance renews them. One entry an
// instance, whatever its number of spectators: renewing 10,000 of one
// match costs one write.
type Watchers struct {
	MatchID  string
	Instance string
	N        int
}

// Presence keeps the leases of connected seats and spectators.
type Presence interface {
	// RenewLeases extends leases that still exist to until (unix ms).
	RenewLeases(ctx context.Context, leases []Lease, until int64) error
	// DropLease removes a lease.
	DropLease(ctx context.Context, l Lease) error
	// ClaimLease moves a lapsed lease to until if it is still lapsed at
	// now; it reports whether this caller won it (exactly one does).
	ClaimLease(ctx context.Context, l Lease, now, until int64) (bool, error)
	// Watch sets each instance's number of watchers of a match (0:
	// none), counted until (unix ms).
	Watch(ctx context.Context, ws []Watchers, until int64) error
	// AddWatcher adds delta (1 or -1) to an instance's watchers of a
	// match, counted until (unix ms).
	AddWatcher(ctx context.Context, id, instance string, delta int, until int64) error
	// Spectators returns the number of live watchers of each match at now.
	Spectators(ctx context.Context, ids []string, now int64) ([]int, error)
}

// hold records a lease this instance renews.
func (s *Service) hold(l Lease) {
	s.mu.Lock()
	s.held[l] = struct{}{}
	s.mu.Unlock()
}

func (s *Service) release(ctx context.Context, l Lease) {
	s.mu.Lock()
	delete(s.held, l)
	s.mu.Unlock()
	if err := s.d.Store.DropLease(ctx, l); err != nil && ctx.Err() == nil {
		s.d.Logger.WarnContext(ctx, "drop lease", "match_id", l.MatchID, "err", err)
	}
}

// Holds reports whether this instance renews lease l (tests).
func (s *Service) Holds(l Lease) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.held[l]
	return ok
}

// Renew extends every lease and watcher this instance holds; Run calls it
// every LeaseRenew. Exported for tests that drive time themselves.
func (s *Service) Renew(ctx context.Context) {
	s.mu.Lock()
	leases := make([]Lease, 0, len(s.held))
	for l := range s.held {
		leases = append(leases, l)
	}
	watchers := make([]Watchers, 0, len(s.watching))
	for id, n := range s.watching {
		watchers = append(watchers, Watchers{MatchID: id, Instance: s.instance, N: n})
	}
	s.mu.Unlock()
	until := s.nowMS() + s.cfg.LeaseTTL.Milliseconds()
	if len(leases) > 0 {
		if err := s.d.Store.RenewLeases(ctx, leases, until); err != nil && ctx.Err() == nil {
			s.d.Logger.WarnContext(ctx, "renew leases", "err", err)
		}
	}
	if len(watchers) > 0 {
		if err := s.d.Store.Watch(ctx, watchers, until); err != nil && ctx.Err() == nil {
			s.d.Logger.WarnContext(ctx, "renew watchers", "err", err)
		}
	}
}

// sweepLeases starts the reconnection window of every seat whose lease
// lapsed (leases, read by Sweep at now): its instance stopped renewing it.
func (s *Service) sweepLeases(ctx context.Context, now int64, leases []Lease) {
	for _, l := range leases {
		won, err := s.d.Store.ClaimLease(ctx, l, now, now+s.cfg.ClaimLease.Milliseconds())
		if err != nil || !won {
			continue
		}
		if err := s.leave(ctx, l.MatchID, l.Seat, l.Epoch); err != nil {
			if ctx.Err() == nil {
				s.d.Logger.WarnContext(ctx, "lapsed lease", "match_id", l.MatchID, "err", err)
			}
			continue // the claim expires and another sweep retries
		}
		s.release(ctx, l)
	}
}

// Watch counts one more spectator of match id until release is called
// (or, if this instance dies, until its renewal lapses). The instance
// keeps one count a match (Renew writes it); an opening and a release
// change it at once.
func (s *Service) Watch(ctx context.Context, id string) (release func(), err error) {
	until := s.nowMS() + s.cfg.LeaseTTL.Milliseconds()
	if err := s.d.Store.AddWatcher(ctx, id, s.instance, 1, until); err != nil {
		return nil, fmt.Errorf("watch match %s: %w", id, err)
	}
	s.mu.Lock()
	s.watching[id]++
	s.mu.Unlock()
	bg := context.WithoutCancel(ctx)
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.watching[id]--; s.watching[id] <= 0 {
				delete(s.watching, id)
			}
			s.mu.Unlock()
			_ = s.d.Store.AddWatcher(bg, id, s.instance, -1, s.nowMS()+s.cfg.LeaseTTL.Milliseconds())
		})
	}, nil
}

// Spectators returns the number of spectators of each match now.
func (s *Service) Spectators(ctx context.Context, ids ...string) ([]int, error) {
	return s.d.Store.Spectators(ctx, ids, s.nowMS())
}
