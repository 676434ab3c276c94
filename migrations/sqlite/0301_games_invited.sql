-- +goose Up
-- invited lists the spectators the seats of a private game invited (a JSON
-- array of player ids, NULL for none): they may read its record too
-- (lobby.v1 GetGame), as they could watch it.
ALTER TABLE games ADD COLUMN invited TEXT;

-- +goose Down
ALTER TABLE games DROP COLUMN invited;
