// Package sqlstore writes finished games to the games table: the only
// place in the match service with SQL. It runs unchanged on PostgreSQL
// (migrations/sql/0100_games.sql, driver "pgx") and on SQLite, the
// one-process mode's embedded store (migrations/sqlite/0100_games.sql, a
// database opened with migrations.OpenSQLite): the INSERT … ON CONFLICT
// is the same SQL in both, and times bind as time.Time, which OpenSQLite
// stores as INTEGER microseconds.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
)

// Store writes game records.
type Store struct{ db *sql.DB }

// New returns a Store on db: PostgreSQL (driver "pgx") or SQLite (opened
// with migrations.OpenSQLite), migrated.
func New(db *sql.DB) *Store { return &Store{db: db} }

// InsertGame stores r once: a record already stored (same game id) is
// left as it is, so delivering a record twice stores it once.
func (s *Store) InsertGame(ctx context.Context, r *match.Record) error {
	seat := func(i int) (player, name, bot any) {
		if i >= len(r.Seats) {
			return nil, nil, nil
		}
		p := r.Seats[i]
		if p.IsBot() {
			return nil, p.DisplayName, p.BotLevel
		}
		return p.PlayerID, p.DisplayName, nil
	}
	p1, n1, b1 := seat(0)
	p2, n2, b2 := seat(1)
	var base, inc any
	if r.Clock != nil {
		base, inc = r.Clock.BaseMS, r.Clock.IncrementMS
	}
	plies := make([]string, len(r.Plies))
	clocks := make([]string, len(r.Plies))
	thinks := make([]string, len(r.Plies))
	for i, p := range r.Plies {
		plies[i] = p.Notation
		clocks[i] = "-"
		if p.ClockMS >= 0 {
			clocks[i] = strconv.FormatInt(p.ClockMS, 10)
		}
		thinks[i] = strconv.FormatInt(p.ThinkMS, 10)
	}
	var winner any
	if r.Outcome.Result == engine.Win {
		winner = r.Outcome.Winner.String()
	}
	var invited any
	if len(r.Invited) > 0 {
		b, err := json.Marshal(r.Invited)
		if err != nil {
			return fmt.Errorf("game %s: invited: %w", r.ID, err)
		}
		invited = string(b)
	}
	_, err := s.db.ExecContext(ctx, `
INSERT INTO games (game_id, game, variant, rated,
  first_player_id, first_display_name, first_bot_level,
  second_player_id, second_display_name, second_bot_level,
  base_ms, increment_ms, plies, ply_clock_ms, ply_think_ms, ply_count,
  result, winner, reason, started_at, ended_at, layout, seed, private, invited)
VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25)
ON CONFLICT (game_id) DO NOTHING`,
		r.ID, string(r.Game), r.Variant, r.Rated, p1, n1, b1, p2, n2, b2, base, inc,
		strings.Join(plies, " "), strings.Join(clocks, " "), strings.Join(thinks, " "), len(r.Plies),
		r.Outcome.Result.String(), winner, r.Outcome.Reason.String(),
		time.UnixMilli(r.StartedAt).UTC(), time.UnixMilli(r.EndedAt).UTC(), nullable(r.Layout), nullable(r.Seed), r.Private, invited)
	if err != nil {
		return fmt.Errorf("insert game %s: %w", r.ID, err)
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
