-- +goose Up
-- signin_addr is the client address a player signed in from (an IPv4
-- address or an IPv6 /64, as the per-address limits key it; NULL when
-- unknown): the ratings processor gives no rating to a second game of a
-- day between the same pair of addresses.
ALTER TABLE players ADD COLUMN signin_addr TEXT;
-- unrated_reason says why a game asked to be rated changed no rating, set
-- by the ratings processor with rating_processed_at: 'not-two-players',
-- 'new-player', 'repeat-opponents', 'repeat-addresses'; NULL for a game
-- that was rated (aborted games are never rated: their reason says so).
ALTER TABLE games ADD COLUMN unrated_reason TEXT;

-- +goose Down
ALTER TABLE games DROP COLUMN unrated_reason;
ALTER TABLE players DROP COLUMN signin_addr;
