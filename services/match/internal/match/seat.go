package match

import (
	"context"

	"tabuleiro.dev/pkg/engine"
)

// SeatOf returns playerID's seat in match id, engine.NoSeat when it holds
// none. Seats never change after creation, so a cached match answers
// without reading the Store: a unary ply pays no extra read for it.
func (s *Service) SeatOf(ctx context.Context, id, playerID string) (engine.Seat, error) {
	e := s.entry(id)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil || e.pos == nil {
		if err := s.reload(ctx, id, e); err != nil {
			return engine.NoSeat, err
		}
		if e.st.Status == StatusFinished {
			s.forget(id)
		}
	}
	return e.st.SeatOf(playerID), nil
}

// After returns match id's state and its position after its first n plies:
// the cached ones when the cache holds exactly n plies (as right after this
// instance committed ply n), else read from the Store and replayed. The
// state is the caller's own copy.
func (s *Service) After(ctx context.Context, id string, n int) (*State, engine.Position, error) {
	e := s.entry(id)
	e.mu.Lock()
	if e.st != nil && e.pos != nil && len(e.st.Plies) == n && e.pos.Plies() == n {
		st, pos := e.st.clone(), e.pos
		e.mu.Unlock()
		return st, pos, nil
	}
	e.mu.Unlock()
	st, pos, err := s.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if len(st.Plies) != n {
		if pos, err = s.PositionAt(st, n); err != nil {
			return nil, nil, err
		}
	}
	return st, pos, nil
}

// Peek returns the cached state and position of match id when both are
// at exactly n plies, without reading the Store or copying anything: they
// are shared, and the caller must not change them (a commit replaces the
// cached state, never changes it). ok is false when nothing is cached at
// n plies, or the entry is busy (a commit in progress).
func (s *Service) Peek(id string, n int) (st *State, pos engine.Position, ok bool) {
	s.mu.Lock()
	e := s.cache[id]
	s.mu.Unlock()
	if e == nil || !e.mu.TryLock() {
		return nil, nil, false
	}
	defer e.mu.Unlock()
	if e.st == nil || e.pos == nil || len(e.st.Plies) != n || e.pos.Plies() != n {
		return nil, nil, false
	}
	return e.st, e.pos, true
}
