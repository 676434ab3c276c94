-- +goose Up
-- SQLite's version of sql/0001 (the one-process mode's embedded store):
-- same version, same tables. Times are INTEGER microseconds since the
-- epoch, declared TIMESTAMP so that the driver reads them as times (see
-- OpenSQLite).
CREATE TABLE schema_origin (
    created_at TIMESTAMP NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
);

-- +goose Down
DROP TABLE schema_origin;
