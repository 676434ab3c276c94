-- +goose Up
-- merged_into is the account a guest was merged into (lobby.v1
-- MergeGuest), merged_at when; NULL for a player never merged. The
-- merged guest's finished games and their rating changes then name the
-- account; its ratings rows are gone (the account keeps its own); its row
-- stays so that a second MergeGuest of it by the same account is known as
-- done, and one by another account refused. The lobby answers NOT_FOUND
-- for it, as for a deleted player.
ALTER TABLE players ADD COLUMN merged_into TEXT REFERENCES players (player_id);
ALTER TABLE players ADD COLUMN merged_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE players DROP COLUMN merged_at;
ALTER TABLE players DROP COLUMN merged_into;
