package testenv

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Matches is a fake lobby.MatchCreator that records every match, returns
// the same id for a repeated request id, and can be told to fail.
type Matches struct {
	mu    sync.Mutex
	byReq map[string]string
	specs map[string]lobby.MatchSpec // by match id
	calls int
	ended map[string]bool
	Fail  error // when set, CreateMatch returns it
}

// CreateMatch records spec and returns its match id.
func (m *Matches) CreateMatch(_ context.Context, spec lobby.MatchSpec) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.Fail != nil {
		return "", m.Fail
	}
	if m.byReq == nil {
		m.byReq = map[string]string{}
		m.specs = map[string]lobby.MatchSpec{}
	}
	if id, ok := m.byReq[spec.RequestID]; ok {
		return id, nil
	}
	id := fmt.Sprintf("m-%d-%s", len(m.byReq)+1, spec.RequestID)
	m.byReq[spec.RequestID] = id
	m.specs[id] = spec
	return id, nil
}

// Specs returns every match created, by id.
func (m *Matches) Specs() map[string]lobby.MatchSpec {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]lobby.MatchSpec, len(m.specs))
	for k, v := range m.specs {
		out[k] = v
	}
	return out
}

// Calls returns how many times CreateMatch was called.
func (m *Matches) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// LiveMatches lists the ids of player's matches that have not ended (see
// End), only among matchIDs when given, as the match service's
// ListMatches would.
func (m *Matches) LiveMatches(_ context.Context, player string, matchIDs ...string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for id, s := range m.specs {
		if len(matchIDs) > 0 && !slices.Contains(matchIDs, id) {
			continue
		}
		if !m.ended[id] && (s.First.PlayerID == player || s.Second.PlayerID == player) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// End ends a match: LiveMatches no longer lists it.
func (m *Matches) End(matchID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended == nil {
		m.ended = map[string]bool{}
	}
	m.ended[matchID] = true
}
