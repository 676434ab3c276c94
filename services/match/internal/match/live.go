package match

import (
	"context"
	"fmt"
)

// Summary is a live match (waiting or in progress) as the live-match
// index keeps it, for the lobby's lists of games to watch and a player's
// games to resume. Nothing in it is hidden information.
type Summary struct {
	ID      string        `json:"id"`
	Game    string        `json:"g"`
	Variant string        `json:"v"`
	Rated   bool          `json:"rt,omitempty"`
	Seats   []Participant `json:"seats"`
	// Plies is the number of plies; the index reads it from the stored
	// plies (the stored summary keeps the count it was written with, 0 or 1).
	Plies     int          `json:"n"`
	Status    Status       `json:"st"`
	Clock     *TimeControl `json:"tc,omitempty"`
	CreatedAt int64        `json:"ca"`
	StartedAt int64        `json:"sa,omitempty"` // the first ply's time
	Private   bool         `json:"pv,omitempty"`
	// Spectators is filled when listed, not stored.
	Spectators int `json:"-"`
}

// SummaryOf returns st's summary.
func SummaryOf(st *State) Summary {
	s := Summary{
		ID: st.ID, Game: string(st.Game), Variant: st.Variant, Rated: st.Rated, Plies: len(st.Plies),
		Status: st.Status, Clock: st.Clock, CreatedAt: st.CreatedAt, Private: st.Private, Seats: make([]Participant, st.Players),
	}
	for i := range st.Players {
		s.Seats[i] = st.Seats[i].Participant
	}
	if len(st.Plies) > 0 {
		s.StartedAt = st.Plies[0].At
	}
	return s
}

// PlayerIDs returns the ids of st's seated players (not bots).
func (st *State) PlayerIDs() []string {
	var ids []string
	for i := range st.Players {
		if p := st.Seats[i].PlayerID; p != "" {
			ids = append(ids, p)
		}
	}
	return ids
}

// MaxListIDs is the most match ids ListMatches takes.
const MaxListIDs = 100

// ListMatches returns live matches, most recently active first, at most
// limit; only those where playerID holds a seat when it is set, and only
// those of ids when given. Each carries its spectator count.
func (s *Service) ListMatches(ctx context.Context, playerID string, limit int, ids ...string) ([]Summary, error) {
	if limit <= 0 || limit > 500 {
		return nil, fmt.Errorf("limit %d out of 1-500: %w", limit, ErrInvalid)
	}
	if len(ids) > MaxListIDs {
		return nil, fmt.Errorf("%d match ids; at most %d: %w", len(ids), MaxListIDs, ErrInvalid)
	}
	sums, err := s.d.Store.Live(ctx, playerID, limit, s.nowMS(), ids...)
	if err != nil {
		return nil, fmt.Errorf("list live matches: %w", err)
	}
	if len(sums) == 0 {
		return sums, nil
	}
	found := make([]string, len(sums))
	for i := range sums {
		found[i] = sums[i].ID
	}
	counts, err := s.Spectators(ctx, found...)
	if err != nil {
		return nil, err
	}
	for i := range sums {
		sums[i].Spectators = counts[i]
	}
	return sums, nil
}
