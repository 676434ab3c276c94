// Package live indexes, in Redis, the matches the lobby created and that
// have not finished: for ListLiveMatches and a player's ListActiveMatches.
// The match service exposes no listing of its live state, so this is what
// the lobby knows: a match leaves the index when its finished record is in
// Postgres (the caller's finished check) or after MaxAge. Ply counts and
// spectators are not known here.
package live

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Match is a created match as the lobby knows it.
type Match struct {
	ID        string          `json:"id"`
	Spec      lobby.MatchSpec `json:"spec"`
	StartedAt time.Time       `json:"started_at"`
}

// Index is the live-match index.
type Index struct {
	rdb    redis.UniversalClient
	prefix string
	maxAge time.Duration
}

// New returns an index under prefix; matches older than maxAge drop out.
func New(rdb redis.UniversalClient, prefix string, maxAge time.Duration) *Index {
	return &Index{rdb: rdb, prefix: prefix + "{live}:", maxAge: maxAge}
}

// Add records a created match.
func (x *Index) Add(ctx context.Context, m Match) error {
	js, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode match %s: %w", m.ID, err)
	}
	score := float64(m.StartedAt.UnixMilli())
	_, err = x.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, x.prefix+"m:"+m.ID, js, x.maxAge)
		p.ZAdd(ctx, x.prefix+"all", redis.Z{Score: score, Member: m.ID})
		for _, s := range []lobby.Participant{m.Spec.First, m.Spec.Second} {
			if s.PlayerID != "" {
				p.ZAdd(ctx, x.prefix+"p:"+s.PlayerID, redis.Z{Score: score, Member: m.ID})
				p.Expire(ctx, x.prefix+"p:"+s.PlayerID, x.maxAge)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index match %s: %w", m.ID, err)
	}
	return nil
}

// List returns the live matches, newest first, of everyone (playerID "")
// or of one player, dropping those finished reports as finished.
func (x *Index) List(ctx context.Context, playerID string, finished func(context.Context, []string) (map[string]bool, error)) ([]Match, error) {
	key := x.prefix + "all"
	if playerID != "" {
		key = x.prefix + "p:" + playerID
	}
	cutoff := time.Now().Add(-x.maxAge).UnixMilli()
	x.rdb.ZRemRangeByScore(ctx, key, "-inf", fmt.Sprint(cutoff))
	ids, err := x.rdb.ZRevRange(ctx, key, 0, 999).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	done, err := finished(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []Match
	for _, id := range ids {
		if done[id] {
			x.rdb.ZRem(ctx, key, id)
			continue
		}
		js, err := x.rdb.Get(ctx, x.prefix+"m:"+id).Bytes()
		if err != nil {
			continue
		}
		var m Match
		if json.Unmarshal(js, &m) == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// Recorder wraps a MatchCreator so that every created match is indexed.
type Recorder struct {
	Next  lobby.MatchCreator
	Index *Index
	Now   func() time.Time
}

// CreateMatch creates the match and indexes it.
func (r Recorder) CreateMatch(ctx context.Context, spec lobby.MatchSpec) (string, error) {
	id, err := r.Next.CreateMatch(ctx, spec)
	if err != nil {
		return "", err
	}
	if err := r.Index.Add(ctx, Match{ID: id, Spec: spec, StartedAt: r.Now()}); err != nil {
		return id, nil // the match exists; only its listing is missing
	}
	return id, nil
}
