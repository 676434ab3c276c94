-- +goose Up
-- SQLite's version of sql/0800_deleted_players.sql: the same column,
-- comments there. Times are TIMESTAMP (INTEGER microseconds, see
-- OpenSQLite).
ALTER TABLE players ADD COLUMN deleted_at TIMESTAMP;

-- +goose Down
ALTER TABLE players DROP COLUMN deleted_at;
