-- +goose Up
-- SQLite's version of sql/0700_passkeys.sql: the same table, comments
-- there. Times are TIMESTAMP (INTEGER microseconds, see OpenSQLite).
CREATE TABLE passkeys (
    credential_id TEXT PRIMARY KEY,
    player_id     TEXT NOT NULL REFERENCES accounts (player_id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    credential    TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)),
    last_used_at  TIMESTAMP
);
CREATE INDEX passkeys_player ON passkeys (player_id, created_at);

-- +goose Down
DROP TABLE passkeys;
