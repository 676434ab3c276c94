package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Passkey is an account's WebAuthn credential (migration 0700).
type Passkey struct {
	// ID is the credential's raw id, base64url without padding.
	ID       string
	PlayerID string
	Name     string
	// Credential is the verified credential as go-webauthn's
	// webauthn.Credential JSON (package passkeys reads and writes it).
	Credential string
	CreatedAt  time.Time
	LastUsedAt time.Time // zero when never used to sign in
}

// ErrPasskeyExists is AddPasskey's error for a credential id already
// registered (to any account).
var ErrPasskeyExists = errors.New("passkey already registered")

// AddPasskey registers a passkey of an account. Errors: lobby.ErrNotFound
// when p.PlayerID is no account, ErrPasskeyExists.
func (s *Store) AddPasskey(ctx context.Context, p Passkey) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin passkey: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE player_id = $1`, p.PlayerID).Scan(&n); err != nil {
		return fmt.Errorf("load account %s: %w", lobby.Clip(p.PlayerID), err)
	}
	if n == 0 {
		return fmt.Errorf("account %s: %w", lobby.Clip(p.PlayerID), lobby.ErrNotFound)
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM passkeys WHERE credential_id = $1`, p.ID).Scan(&n); err != nil {
		return fmt.Errorf("look up passkey: %w", err)
	}
	if n > 0 {
		return ErrPasskeyExists
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO passkeys (credential_id, player_id, name, credential, created_at)
		VALUES ($1, $2, $3, $4, $5)`, p.ID, p.PlayerID, p.Name, p.Credential, s.now().UTC())
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		// A race on one credential id: the other insert won.
		var again int
		if qerr := s.db.QueryRowContext(ctx, `SELECT count(*) FROM passkeys WHERE credential_id = $1`, p.ID).Scan(&again); qerr == nil && again > 0 {
			return ErrPasskeyExists
		}
		return fmt.Errorf("add passkey: %w", err)
	}
	return nil
}

const passkeyColumns = `credential_id, player_id, name, credential, created_at, last_used_at`

func scanPasskey(row interface{ Scan(...any) error }) (Passkey, error) {
	var p Passkey
	var used sql.NullTime
	err := row.Scan(&p.ID, &p.PlayerID, &p.Name, &p.Credential, &p.CreatedAt, &used)
	p.LastUsedAt = used.Time
	return p, err
}

// Passkeys lists an account's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, playerID string) ([]Passkey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE player_id = $1
		ORDER BY created_at, credential_id`, playerID)
	if err != nil {
		return nil, fmt.Errorf("list passkeys of %s: %w", lobby.Clip(playerID), err)
	}
	defer func() { _ = rows.Close() }()
	var list []Passkey
	for rows.Next() {
		p, err := scanPasskey(rows)
		if err != nil {
			return nil, fmt.Errorf("list passkeys of %s: %w", lobby.Clip(playerID), err)
		}
		list = append(list, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list passkeys of %s: %w", lobby.Clip(playerID), err)
	}
	return list, nil
}

// Passkey returns a passkey by credential id; lobby.ErrNotFound when none
// is registered (never, or removed).
func (s *Store) Passkey(ctx context.Context, id string) (Passkey, error) {
	p, err := scanPasskey(s.db.QueryRowContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE credential_id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Passkey{}, fmt.Errorf("passkey %s: %w", lobby.Clip(id), lobby.ErrNotFound)
	}
	if err != nil {
		return Passkey{}, fmt.Errorf("load passkey: %w", err)
	}
	return p, nil
}

// UsePasskey records a sign-in with a passkey: its credential as updated
// by the ceremony (sign count, flags) and when. lobby.ErrNotFound when it
// was removed meanwhile.
func (s *Store) UsePasskey(ctx context.Context, id, credential string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE passkeys SET credential = $2, last_used_at = $3 WHERE credential_id = $1`,
		id, credential, s.now().UTC())
	if err != nil {
		return fmt.Errorf("update passkey: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("passkey %s: %w", lobby.Clip(id), lobby.ErrNotFound)
	}
	return nil
}

// RemovePasskey deletes an account's passkey; lobby.ErrNotFound when the
// account has no such passkey.
func (s *Store) RemovePasskey(ctx context.Context, playerID, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM passkeys WHERE player_id = $1 AND credential_id = $2`, playerID, id)
	if err != nil {
		return fmt.Errorf("remove passkey: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("passkey %s: %w", lobby.Clip(id), lobby.ErrNotFound)
	}
	return nil
}

// AccountByPlayer returns a player's account, with its display name;
// lobby.ErrNotFound for a guest.
func (s *Store) AccountByPlayer(ctx context.Context, playerID string) (Account, error) {
	var a Account
	err := s.db.QueryRowContext(ctx, `SELECT a.player_id, a.username, a.username_key, a.username_skeleton, a.shown_skeleton,
		a.password_hash, p.display_name
		FROM accounts a JOIN players p ON p.player_id = a.player_id WHERE a.player_id = $1`, playerID).
		Scan(&a.PlayerID, &a.Username, &a.Key, &a.Skeleton, &a.ShownSkeleton, &a.PasswordHash, &a.DisplayName)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, fmt.Errorf("account of %s: %w", lobby.Clip(playerID), lobby.ErrNotFound)
	}
	if err != nil {
		return Account{}, fmt.Errorf("load account: %w", err)
	}
	return a, nil
}

// SetPassword replaces an account's password hash; lobby.ErrNotFound for
// a guest.
func (s *Store) SetPassword(ctx context.Context, playerID, hash string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE accounts SET password_hash = $2, password_set_at = $3 WHERE player_id = $1`,
		playerID, hash, s.now().UTC())
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("account of %s: %w", lobby.Clip(playerID), lobby.ErrNotFound)
	}
	return nil
}
