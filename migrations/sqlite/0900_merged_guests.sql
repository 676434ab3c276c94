-- +goose Up
-- SQLite's version of sql/0900_merged_guests.sql: the same columns,
-- comments there. Times are TIMESTAMP (INTEGER microseconds, see
-- OpenSQLite); merged_into has no REFERENCES here (SQLite cannot drop
-- a column that has one).
ALTER TABLE players ADD COLUMN merged_into TEXT;
ALTER TABLE players ADD COLUMN merged_at TIMESTAMP;

-- +goose Down
ALTER TABLE players DROP COLUMN merged_at;
ALTER TABLE players DROP COLUMN merged_into;
