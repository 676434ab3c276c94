package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Errors of MergeGuest.
var (
	// ErrNotGuest: the player to merge is an account, a deleted player,
	// or a guest merged into another account.
	ErrNotGuest = errors.New("not a guest that can be merged")
	// ErrSamePlayer: the guest is the account itself.
	ErrSamePlayer = errors.New("the guest is the account itself")
	// ErrGuestUnrated: a rated game of the guest is not in the ratings
	// yet (the processor has not reached it): merging now would let it
	// change the account's rating.
	ErrGuestUnrated = errors.New("a rated game of the guest is not in the ratings yet")
)

// Merge says what MergeGuest did.
type Merge struct {
	// Games is how many finished games now name the account in the
	// guest's seat.
	Games int
	// Already: the guest was merged into this account before; nothing
	// was moved.
	Already bool
}

// MergeGuest merges guest guestID into account accountID (lobby.v1
// MergeGuest), in one transaction: the guest's finished games and their
// rating changes name the account instead (games between the two stay as
// they were: a player does not play itself); the guest's ratings rows are
// deleted (the account keeps its own); the guest's row is marked
// merged_into the account, which makes it unknown to Player. Merging a
// guest into the account it was merged into is done already
// (Merge.Already). Errors: lobby.ErrNotFound (no such guest, or the
// account is not one), ErrSamePlayer, ErrNotGuest, ErrGuestUnrated.
func (s *Store) MergeGuest(ctx context.Context, guestID, accountID string) (Merge, error) {
	if guestID == accountID {
		return Merge{}, fmt.Errorf("player %s: %w", lobby.Clip(guestID), ErrSamePlayer)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Merge{}, fmt.Errorf("begin merge: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	// The guest's row first, locked (PostgreSQL; SQLite's write
	// transaction holds the database): two merges of one guest run one
	// after the other.
	var (
		into            sql.NullString
		deleted, isAcct bool
	)
	err = tx.QueryRowContext(ctx, `SELECT merged_into, deleted_at IS NOT NULL,
		EXISTS (SELECT 1 FROM accounts a WHERE a.player_id = p.player_id)
		FROM players p WHERE p.player_id = $1`+s.lockRating, guestID).Scan(&into, &deleted, &isAcct)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Merge{}, fmt.Errorf("guest %s: %w", lobby.Clip(guestID), lobby.ErrNotFound)
	case err != nil:
		return Merge{}, fmt.Errorf("load guest %s: %w", lobby.Clip(guestID), err)
	case into.Valid && into.String == accountID:
		return Merge{Already: true}, nil
	case into.Valid:
		return Merge{}, fmt.Errorf("guest %s was merged into another account: %w", lobby.Clip(guestID), ErrNotGuest)
	case deleted:
		return Merge{}, fmt.Errorf("player %s was deleted: %w", lobby.Clip(guestID), ErrNotGuest)
	case isAcct:
		return Merge{}, fmt.Errorf("player %s is an account: %w", lobby.Clip(guestID), ErrNotGuest)
	}
	var acct bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts a JOIN players p ON p.player_id = a.player_id
		WHERE a.player_id = $1 AND p.deleted_at IS NULL)`, accountID).Scan(&acct); err != nil {
		return Merge{}, fmt.Errorf("load account %s: %w", lobby.Clip(accountID), err)
	}
	if !acct {
		return Merge{}, fmt.Errorf("account %s: %w", lobby.Clip(accountID), lobby.ErrNotFound)
	}
	var pending int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM games
		WHERE (first_player_id = $1 OR second_player_id = $1) AND rated AND rating_processed_at IS NULL`, guestID).Scan(&pending); err != nil {
		return Merge{}, fmt.Errorf("pending games of %s: %w", lobby.Clip(guestID), err)
	}
	if pending > 0 {
		return Merge{}, fmt.Errorf("guest %s: %d games: %w", lobby.Clip(guestID), pending, ErrGuestUnrated)
	}
	var m Merge
	// Rating changes first, while the games still name the guest.
	for _, q := range []struct {
		sql   string
		games bool // counts moved games
	}{
		{`UPDATE rating_changes SET player_id = $2 WHERE player_id = $1 AND game_id IN (SELECT game_id FROM games
			WHERE (first_player_id = $1 AND (second_player_id IS NULL OR second_player_id <> $2))
			   OR (second_player_id = $1 AND (first_player_id IS NULL OR first_player_id <> $2)))`, false},
		{`UPDATE games SET first_player_id = $2 WHERE first_player_id = $1 AND (second_player_id IS NULL OR second_player_id <> $2)`, true},
		{`UPDATE games SET second_player_id = $2 WHERE second_player_id = $1 AND (first_player_id IS NULL OR first_player_id <> $2)`, true},
	} {
		res, err := tx.ExecContext(ctx, q.sql, guestID, accountID)
		if err != nil {
			return Merge{}, fmt.Errorf("merge guest %s: %w", lobby.Clip(guestID), err)
		}
		if q.games {
			n, err := res.RowsAffected()
			if err != nil {
				return Merge{}, fmt.Errorf("merge guest %s: %w", lobby.Clip(guestID), err)
			}
			m.Games += int(n)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM ratings WHERE player_id = $1`, guestID); err != nil {
		return Merge{}, fmt.Errorf("drop the ratings of guest %s: %w", lobby.Clip(guestID), err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE players SET merged_into = $2, merged_at = $3 WHERE player_id = $1`,
		guestID, accountID, s.now().UTC()); err != nil {
		return Merge{}, fmt.Errorf("mark guest %s merged: %w", lobby.Clip(guestID), err)
	}
	if err := tx.Commit(); err != nil {
		return Merge{}, fmt.Errorf("merge guest %s: %w", lobby.Clip(guestID), err)
	}
	return m, nil
}

// MergedInto returns the account guest playerID was merged into, "" when
// it was not; lobby.ErrNotFound when there is no such player.
func (s *Store) MergedInto(ctx context.Context, playerID string) (string, error) {
	var into sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT merged_into FROM players WHERE player_id = $1`, playerID).Scan(&into)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("player %s: %w", lobby.Clip(playerID), lobby.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("load player %s: %w", lobby.Clip(playerID), err)
	}
	return into.String, nil
}

// Newcomer is where a player stands under the fair-play rule for rated
// play (Fairness): how many casual games it has finished of the
// MinCasual that make it established, and when its age will.
type Newcomer struct {
	Casual, MinCasual int
	OpensAt           time.Time
}

// Newcomer reports whether playerID is not established yet (the rule of
// Fairness, as of now) and where it stands; false for an established
// player or one unknown here.
func (s *Store) Newcomer(ctx context.Context, playerID string) (Newcomer, bool, error) {
	f := s.fair
	if f.MinAge <= 0 {
		return Newcomer{}, false, nil
	}
	var created time.Time
	err := s.db.QueryRowContext(ctx, `SELECT created_at FROM players WHERE player_id = $1`, playerID).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return Newcomer{}, false, nil
	}
	if err != nil {
		return Newcomer{}, false, fmt.Errorf("load player %s: %w", lobby.Clip(playerID), err)
	}
	n := Newcomer{MinCasual: f.MinCasualGames, OpensAt: created.Add(f.MinAge)}
	if !s.now().Before(n.OpensAt) {
		return n, false, nil
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM games
		WHERE (first_player_id = $1 OR second_player_id = $1) AND NOT rated AND reason <> 'aborted'`, playerID).Scan(&n.Casual); err != nil {
		return Newcomer{}, false, fmt.Errorf("casual games of %s: %w", lobby.Clip(playerID), err)
	}
	return n, n.Casual < f.MinCasualGames, nil
}
