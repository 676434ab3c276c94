-- +goose Up
-- SQLite's version of sql/0200_lobby_players_ratings.sql: the same tables,
-- comments there. Times are TIMESTAMP (INTEGER microseconds, see
-- OpenSQLite).
CREATE TABLE players (
    player_id    TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
);

CREATE TABLE ratings (
    player_id  TEXT NOT NULL,
    game       TEXT NOT NULL,
    variant    TEXT NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      INTEGER NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (player_id, game, variant)
);

CREATE TABLE rating_changes (
    game_id   TEXT NOT NULL,
    player_id TEXT NOT NULL,
    before    DOUBLE PRECISION NOT NULL,
    after     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, player_id)
);

-- +goose Down
DROP TABLE rating_changes;
DROP TABLE ratings;
DROP TABLE players;
