-- +goose Up
-- SQLite's version of sql/0500_accounts.sql: the same table, comments
-- there. Times are TIMESTAMP (INTEGER microseconds, see OpenSQLite).
CREATE TABLE accounts (
    player_id         TEXT PRIMARY KEY REFERENCES players (player_id),
    username          TEXT NOT NULL,
    username_key      TEXT NOT NULL UNIQUE,
    username_skeleton TEXT NOT NULL UNIQUE,
    shown_skeleton    TEXT NOT NULL,
    password_hash     TEXT NOT NULL,
    created_at        TIMESTAMP NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)),
    password_set_at   TIMESTAMP NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
);

-- +goose Down
DROP TABLE accounts;
