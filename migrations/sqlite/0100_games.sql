-- +goose Up
-- SQLite's version of sql/0100_games.sql: the same columns, comments there.
-- Only the types differ: times are TIMESTAMP (INTEGER microseconds, see
-- OpenSQLite), booleans 0/1.
CREATE TABLE games (
    game_id             TEXT PRIMARY KEY,
    game                TEXT NOT NULL,
    variant             TEXT NOT NULL,
    rated               BOOLEAN NOT NULL,
    first_player_id     TEXT,
    first_display_name  TEXT NOT NULL,
    first_bot_level     INTEGER,
    second_player_id    TEXT,
    second_display_name TEXT,
    second_bot_level    INTEGER,
    base_ms             BIGINT,
    increment_ms        BIGINT,
    plies               TEXT NOT NULL,
    ply_clock_ms        TEXT NOT NULL,
    ply_think_ms        TEXT NOT NULL,
    ply_count           INTEGER NOT NULL,
    result              TEXT NOT NULL,
    winner              TEXT,
    reason              TEXT NOT NULL,
    started_at          TIMESTAMP NOT NULL,
    ended_at            TIMESTAMP NOT NULL,
    layout              TEXT,
    seed                TEXT,
    recorded_at         TIMESTAMP NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)),
    rating_processed_at TIMESTAMP
);

CREATE INDEX games_first_player_idx ON games (first_player_id, ended_at);
CREATE INDEX games_second_player_idx ON games (second_player_id, ended_at);
CREATE INDEX games_rating_pending_idx ON games (ended_at) WHERE rated AND rating_processed_at IS NULL;

-- +goose Down
DROP TABLE games;
