-- +goose Up
-- private marks the game of a private room: its record is shown only to
-- its own players (lobby.v1 GetGame and ListGames of someone else skip it).
ALTER TABLE games ADD COLUMN private BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE games DROP COLUMN private;
