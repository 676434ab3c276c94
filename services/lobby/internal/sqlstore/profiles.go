package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Usernames returns the account usernames of those of ids that are
// accounts, by player id (guests, deleted players and unknown ids are
// absent).
func (s *Store) Usernames(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	marks := make([]string, 0, len(ids))
	args := make([]any, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		args = append(args, id)
		marks = append(marks, "$"+strconv.Itoa(len(args)))
	}
	if len(args) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT player_id, username FROM accounts WHERE player_id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("usernames: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("usernames: %w", err)
		}
		out[id] = name
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usernames: %w", err)
	}
	return out, nil
}

// nameSeats shows every account's seat of games by its username (Seat
// Username and DisplayName): an account is shown by its username, in the
// games it played before it claimed it too. A guest's seat keeps the name
// it played under, a deleted player's "deleted player".
func (s *Store) nameSeats(ctx context.Context, games []*Summary) error {
	var ids []string
	for _, g := range games {
		ids = append(ids, g.First.PlayerID)
		if g.Second != nil {
			ids = append(ids, g.Second.PlayerID)
		}
	}
	names, err := s.Usernames(ctx, ids)
	if err != nil {
		return err
	}
	for _, g := range games {
		for _, st := range []*Seat{&g.First, g.Second} {
			if st == nil || st.PlayerID == "" {
				continue
			}
			if u, ok := names[st.PlayerID]; ok {
				st.Username, st.DisplayName = u, u
			}
		}
	}
	return nil
}

// GameRecordSummary is a player's wins, losses and draws in one game.
type GameRecordSummary struct {
	Game                engine.Game
	Wins, Losses, Draws int
}

// Profile is an account's public profile.
type Profile struct {
	PlayerID    string
	Username    string
	MemberSince time.Time // the player row's creation: its first sign-in
	Ratings     []Rating
	Records     []GameRecordSummary
	Recent      []Summary
}

// Profile returns the public profile of the account whose username key
// is key (accounts.Key), with its recent most recent finished public
// games; lobby.ErrNotFound when no account has the key (a deleted
// account has none). Private room games count nowhere in it.
func (s *Store) Profile(ctx context.Context, key string, recent int) (Profile, error) {
	var p Profile
	err := s.db.QueryRowContext(ctx, `SELECT a.player_id, a.username, p.created_at
		FROM accounts a JOIN players p ON p.player_id = a.player_id
		WHERE a.username_key = $1 AND p.deleted_at IS NULL`, key).Scan(&p.PlayerID, &p.Username, &p.MemberSince)
	if errors.Is(err, sql.ErrNoRows) {
		return Profile{}, fmt.Errorf("account: %w", lobby.ErrNotFound)
	}
	if err != nil {
		return Profile{}, fmt.Errorf("load profile: %w", err)
	}
	if p.Ratings, err = s.ratingsOf(ctx, p.PlayerID); err != nil {
		return Profile{}, err
	}
	if p.Records, err = s.publicRecords(ctx, p.PlayerID); err != nil {
		return Profile{}, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+summaryColumns+` FROM games
		WHERE (first_player_id = $1 OR second_player_id = $1) AND NOT private
		ORDER BY ended_at DESC, game_id DESC LIMIT $2`, p.PlayerID, recent)
	if err != nil {
		return Profile{}, fmt.Errorf("recent games of %s: %w", p.PlayerID, err)
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanSummary(rows)
		if err != nil {
			return Profile{}, fmt.Errorf("recent games of %s: %w", p.PlayerID, err)
		}
		p.Recent = append(p.Recent, g)
	}
	if err := rows.Err(); err != nil {
		return Profile{}, fmt.Errorf("recent games of %s: %w", p.PlayerID, err)
	}
	seats := make([]*Summary, len(p.Recent))
	for i := range p.Recent {
		seats[i] = &p.Recent[i]
	}
	return p, s.nameSeats(ctx, seats)
}

// ratingsOf returns a player's ratings in the variants it has played
// rated games in, by game and variant.
func (s *Store) ratingsOf(ctx context.Context, playerID string) ([]Rating, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT game, variant, rating, deviation, volatility, games, updated_at
		FROM ratings WHERE player_id = $1 AND games > 0 ORDER BY game, variant`, playerID)
	if err != nil {
		return nil, fmt.Errorf("ratings of %s: %w", playerID, err)
	}
	defer rows.Close()
	var out []Rating
	for rows.Next() {
		var r Rating
		var game string
		if err := rows.Scan(&game, &r.Variant, &r.Rating.Rating, &r.Rating.Deviation, &r.Rating.Volatility, &r.Games, &r.UpdatedAt); err != nil {
			return nil, fmt.Errorf("ratings of %s: %w", playerID, err)
		}
		r.Game = engine.Game(game)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ratings of %s: %w", playerID, err)
	}
	return out, nil
}

// publicRecords counts a player's wins, losses and draws per game over
// its finished public games against another player or a bot: not
// aborted, not private, not one-player, not both seats its own.
func (s *Store) publicRecords(ctx context.Context, playerID string) ([]GameRecordSummary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT game,
			count(*) FILTER (WHERE result = 'win' AND winner = seat),
			count(*) FILTER (WHERE result = 'win' AND winner <> seat),
			count(*) FILTER (WHERE result = 'draw')
		FROM (
			SELECT game, 'first' AS seat, result, winner, reason FROM games
			WHERE first_player_id = $1 AND NOT private
			  AND (second_bot_level IS NOT NULL OR (second_player_id IS NOT NULL AND second_player_id <> $1))
			UNION ALL
			SELECT game, 'second', result, winner, reason FROM games
			WHERE second_player_id = $1 AND NOT private
			  AND (first_bot_level IS NOT NULL OR (first_player_id IS NOT NULL AND first_player_id <> $1))
		) AS played
		WHERE reason <> 'aborted'
		GROUP BY game ORDER BY game`, playerID)
	if err != nil {
		return nil, fmt.Errorf("record of %s: %w", playerID, err)
	}
	defer rows.Close()
	var out []GameRecordSummary
	for rows.Next() {
		var r GameRecordSummary
		var game string
		if err := rows.Scan(&game, &r.Wins, &r.Losses, &r.Draws); err != nil {
			return nil, fmt.Errorf("record of %s: %w", playerID, err)
		}
		r.Game = engine.Game(game)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("record of %s: %w", playerID, err)
	}
	return out, nil
}
