package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Account is a player's account row (migration 0500): the username as
// written, its key and skeletons (package accounts) and the password's
// argon2id hash.
type Account struct {
	PlayerID      string
	Username      string
	Key           string
	Skeleton      string
	ShownSkeleton string
	PasswordHash  string
	DisplayName   string // the player's, read with the account
}

// CreateAccount makes the guest a.PlayerID an account. Errors:
// lobby.ErrNotFound (no such player), lobby.ErrAlreadyClaimed (an account
// already), a *lobby.UsernameError when another account has the key or a
// skeleton a.Skeleton or a.ShownSkeleton meets (checked again after a
// failed insert, so that a race lost to a look-alike says so).
func (s *Store) CreateAccount(ctx context.Context, a Account) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin account: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var claimed bool
	err = tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE player_id = $1) FROM players WHERE player_id = $1`,
		a.PlayerID).Scan(&claimed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("player %s: %w", lobby.Clip(a.PlayerID), lobby.ErrNotFound)
	case err != nil:
		return fmt.Errorf("load player %s: %w", lobby.Clip(a.PlayerID), err)
	case claimed:
		return fmt.Errorf("player %s: %w", a.PlayerID, lobby.ErrAlreadyClaimed)
	}
	if err := conflict(ctx, tx, a); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO accounts (player_id, username, username_key, username_skeleton, shown_skeleton, password_hash)
		VALUES ($1, $2, $3, $4, $5, $6)`, a.PlayerID, a.Username, a.Key, a.Skeleton, a.ShownSkeleton, a.PasswordHash)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		_ = tx.Rollback()
		if cerr := conflict(ctx, s.db, a); cerr != nil {
			return cerr
		}
		return fmt.Errorf("create account: %w", err)
	}
	return nil
}

// conflict returns a *lobby.UsernameError naming an account whose
// username a's takes or looks like, nil when there is none.
func conflict(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, a Account) error {
	var name, key string
	err := q.QueryRowContext(ctx, `SELECT username, username_key FROM accounts
		WHERE username_key = $1 OR username_skeleton IN ($2, $3) OR shown_skeleton IN ($2, $3)
		ORDER BY CASE WHEN username_key = $1 THEN 0 ELSE 1 END LIMIT 1`, a.Key, a.Skeleton, a.ShownSkeleton).Scan(&name, &key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("look up usernames: %w", err)
	case key == a.Key:
		return &lobby.UsernameError{Existing: name, Err: lobby.ErrUsernameTaken}
	}
	return &lobby.UsernameError{Existing: name, Err: lobby.ErrUsernameConfusable}
}

// AccountByKey returns the account whose username key is key, with its
// player's display name; lobby.ErrNotFound when there is none.
func (s *Store) AccountByKey(ctx context.Context, key string) (Account, error) {
	var a Account
	err := s.db.QueryRowContext(ctx, `SELECT a.player_id, a.username, a.username_key, a.username_skeleton, a.shown_skeleton,
		a.password_hash, p.display_name
		FROM accounts a JOIN players p ON p.player_id = a.player_id WHERE a.username_key = $1`, key).
		Scan(&a.PlayerID, &a.Username, &a.Key, &a.Skeleton, &a.ShownSkeleton, &a.PasswordHash, &a.DisplayName)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, fmt.Errorf("account: %w", lobby.ErrNotFound)
	}
	if err != nil {
		return Account{}, fmt.Errorf("load account: %w", err)
	}
	return a, nil
}
