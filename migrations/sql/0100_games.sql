-- +goose Up
-- games holds every finished match, written once by the match service's
-- recorder from its Redis outbox (INSERT … ON CONFLICT DO NOTHING on
-- game_id, so a record delivered twice is stored once). The lobby reads it
-- for history and marks rating_processed_at once ratings include it.
CREATE TABLE games (
    game_id             TEXT PRIMARY KEY,
    game                TEXT NOT NULL,
    variant             TEXT NOT NULL,
    rated               BOOLEAN NOT NULL,
    -- A seat is a player (player_id set, bot_level NULL) or a bot
    -- (player_id NULL, bot_level 1–4); second is all NULL in a one-player
    -- training game.
    first_player_id     TEXT,
    first_display_name  TEXT NOT NULL,
    first_bot_level     INTEGER,
    second_player_id    TEXT,
    second_display_name TEXT,
    second_bot_level    INTEGER,
    -- Time control in milliseconds; NULL for a game without a clock.
    base_ms             BIGINT,
    increment_ms        BIGINT,
    -- plies is the game's plies in RULES.md notation, separated by single
    -- spaces; ply_clock_ms the mover's remaining clock after each ply
    -- (same count, "-" when there is no clock) and ply_think_ms the time
    -- each ply took, both space-separated integers.
    plies               TEXT NOT NULL,
    ply_clock_ms        TEXT NOT NULL,
    ply_think_ms        TEXT NOT NULL,
    ply_count           INTEGER NOT NULL,
    -- result is 'win' or 'draw'; winner 'first', 'second' or NULL; reason
    -- the engine's Reason name ('goal', 'time', 'abandonment', …).
    result              TEXT NOT NULL,
    winner              TEXT,
    reason              TEXT NOT NULL,
    started_at          TIMESTAMPTZ NOT NULL,
    ended_at            TIMESTAMPTZ NOT NULL,
    -- Banqi only: the 32-letter layout (B1) and the seed it was drawn from
    -- (lowercase hex; NULL for a replay created with a layout).
    layout              TEXT,
    seed                TEXT,
    recorded_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- rating_processed_at is set by the lobby once the result is in the
    -- ratings; NULL until then.
    rating_processed_at TIMESTAMPTZ
);

CREATE INDEX games_first_player_idx ON games (first_player_id, ended_at);
CREATE INDEX games_second_player_idx ON games (second_player_id, ended_at);
CREATE INDEX games_rating_pending_idx ON games (ended_at) WHERE rated AND rating_processed_at IS NULL;

-- +goose Down
DROP TABLE games;
