-- +goose Up
-- game_reviews keeps the expert's review of a finished game (lobby
-- ReviewGame), one per game and engine version (with its node budget), so
-- that asking again costs nothing; review is the game.v1 GameReview in
-- protobuf's JSON form.
CREATE TABLE game_reviews (
    game_id TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    engine_version TEXT NOT NULL,
    review TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, engine_version)
);

-- +goose Down
DROP TABLE game_reviews;
