-- +goose Up
-- deleted_at is when the player's account was deleted (lobby.v1
-- DeleteAccount); NULL for a live player. A deleted player's row stays
-- only because finished games name its id: its display name is then
-- 'deleted player' (as in those games), its signin_addr NULL, its account
-- and ratings rows gone. The lobby answers NOT_FOUND for it.
ALTER TABLE players ADD COLUMN deleted_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE players DROP COLUMN deleted_at;
