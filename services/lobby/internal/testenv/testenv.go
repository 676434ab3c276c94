// Package testenv gives lobby tests their isolated share of the real Redis
// and PostgreSQL that scripts/test.sh starts: a random Redis key prefix and
// a fresh Postgres schema per test, with the migrations applied. It wraps
// tabuleiro.dev/pkg/platform/testenv with what is the lobby's own.
package testenv

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/migrations"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Redis returns a client of the test Redis and a key prefix no other test
// uses; the prefix's keys are deleted when the test ends.
func Redis(t testing.TB) (redis.UniversalClient, string) {
	t.Helper()
	return testenv.Redis(t, "lobby")
}

// Postgres returns a pool on a fresh schema of the test database, first on
// the search path, with every migration applied; the schema is dropped
// when the test ends.
func Postgres(t testing.TB) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testenv.PostgresDSN(t))
	if err != nil {
		t.Fatalf("parse TABULEIRO_TEST_DATABASE_URL: %v", err)
	}
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("connect test schema: %v", err)
	}
	t.Cleanup(pool.Close)
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	if _, err := migrations.Up(t.Context(), db); err != nil {
		t.Fatalf("apply migrations: %v", err)
	}
	return pool
}

// Variants is a stand-in for the games registry with the rated flags of
// RULES.md (Q5, C7): Quoridor's variants and Corners' classic-3x3,
// classic-3x4 and diagonal-3x3 are rated; Banqi and the other Corners
// variants are not; Corners "training" is for one player. An empty
// variant is the game's default, as in the registry.
func Variants(game engine.Game, variant string) (engine.Variant, error) {
	type key struct {
		g engine.Game
		v string
	}
	known := map[key]engine.Variant{
		{engine.Quoridor, "standard"}:    {Game: engine.Quoridor, ID: "standard", Players: 2, Rated: true, DefaultBaseMS: 180000, DefaultIncrementMS: 2000},
		{engine.Quoridor, "limit200"}:    {Game: engine.Quoridor, ID: "limit200", Players: 2, Rated: true, Draws: true, DefaultBaseMS: 180000, DefaultIncrementMS: 2000},
		{engine.Corners, "classic-3x3"}:  {Game: engine.Corners, ID: "classic-3x3", Players: 2, Rated: true, Draws: true, DefaultBaseMS: 300000, DefaultIncrementMS: 3000},
		{engine.Corners, "diagonal-3x4"}: {Game: engine.Corners, ID: "diagonal-3x4", Players: 2, Draws: true, DefaultBaseMS: 300000, DefaultIncrementMS: 3000},
		{engine.Corners, "training"}:     {Game: engine.Corners, ID: "training", Players: 1},
		{engine.Banqi, "standard"}:       {Game: engine.Banqi, ID: "standard", Players: 2, Draws: true, NeedsSetup: true},
	}
	if variant == "" { // the registry's defaults
		variant = map[engine.Game]string{engine.Quoridor: "standard", engine.Corners: "classic-3x3", engine.Banqi: "standard"}[game]
	}
	v, ok := known[key{game, variant}]
	if !ok {
		return engine.Variant{}, fmt.Errorf("%s/%s: %w", game, variant, engine.ErrUnknownVariant)
	}
	return v, nil
}

var _ lobby.VariantLookup = Variants

// SQLite returns a migrated SQLite database in a file of the test's
// temporary directory, as the one-process mode opens it.
func SQLite(t testing.TB) *sql.DB {
	t.Helper()
	db, err := migrations.OpenSQLite(filepath.Join(t.TempDir(), "results.db"))
	return testenv.Migrated(t, db, err, migrations.UpSQLite)
}
