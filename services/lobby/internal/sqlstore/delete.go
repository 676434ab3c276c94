package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// DeleteAccount erases player playerID's personal data (lobby.v1
// DeleteAccount), in one transaction: its account (username, password
// hash) and ratings rows are deleted; its players row keeps only the id
// that finished games name, with the display name lobby.DeletedName, no
// sign-in address and deleted_at set; in its finished games its name
// becomes lobby.DeletedName too. The games themselves stay (the other
// player's history). lobby.ErrNotFound when there is no such player, or it
// was deleted already.
func (s *Store) DeleteAccount(ctx context.Context, playerID string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin delete: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `UPDATE players SET display_name = $2, signin_addr = NULL, deleted_at = $3
		WHERE player_id = $1 AND deleted_at IS NULL`, playerID, lobby.DeletedName, s.now().UTC())
	if err != nil {
		return fmt.Errorf("delete player: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("player %s: %w", lobby.Clip(playerID), lobby.ErrNotFound)
	}
	for _, q := range []string{
		`DELETE FROM passkeys WHERE player_id = $1`,
		`DELETE FROM accounts WHERE player_id = $1`,
		`DELETE FROM ratings WHERE player_id = $1`,
		`UPDATE games SET first_display_name = $2 WHERE first_player_id = $1`,
		`UPDATE games SET second_display_name = $2 WHERE second_player_id = $1`,
	} {
		args := []any{playerID}
		if strings.Contains(q, "$2") {
			args = append(args, lobby.DeletedName)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("delete account: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete account: %w", err)
	}
	return nil
}
