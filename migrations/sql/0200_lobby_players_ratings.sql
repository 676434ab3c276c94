-- +goose Up
-- players are the people the lobby has signed in (guests today). The id is
-- the opaque player id carried in tokens.
CREATE TABLE players (
    player_id    TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- ratings hold one Glicko-2 rating per player and rated variant (rating
-- and deviation on the Glicko scale; see services/lobby/internal/glicko
-- for the parameters). A missing row means the initial 1500/350/0.06.
CREATE TABLE ratings (
    player_id  TEXT NOT NULL,
    game       TEXT NOT NULL,
    variant    TEXT NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      INTEGER NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (player_id, game, variant)
);

-- rating_changes record how each rated game moved each person's rating,
-- written in the transaction that sets games.rating_processed_at, so a
-- game counts once.
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
