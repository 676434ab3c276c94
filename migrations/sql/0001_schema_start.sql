-- +goose Up
-- The first migration only marks the start of Tabuleiro's schema; the
-- services' tables follow in their own number ranges (see migrations.go).
CREATE TABLE schema_origin (
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE schema_origin;
