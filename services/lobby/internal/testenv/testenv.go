// Package testenv gives lobby tests their isolated share of the real Redis
// and PostgreSQL that scripts/test.sh starts: a random Redis key prefix and
// a fresh Postgres schema per test, with the migrations applied.
package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/migrations"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Redis returns a client of the test Redis and a key prefix no other test
// uses; the prefix's keys are deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	url := os.Getenv("TABULEIRO_TEST_REDIS_URL")
	if url == "" {
		t.Fatal("TABULEIRO_TEST_REDIS_URL is not set: run ./scripts/test.sh, which starts Redis and sets it")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse TABULEIRO_TEST_REDIS_URL: %v", err)
	}
	opts.PoolSize = 32
	rdb := redis.NewClient(opts)
	prefix := fmt.Sprintf("test-lobby-%016x:", rand.Uint64())
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		for len(keys) > 0 {
			n := min(500, len(keys))
			rdb.Del(ctx, keys[:n]...)
			keys = keys[n:]
		}
		_ = rdb.Close()
	})
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("ping test Redis: %v", err)
	}
	return rdb, prefix
}

// Postgres returns a pool on a fresh schema of the test database, first on
// the search path, with every migration applied; the schema is dropped
// when the test ends.
func Postgres(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := os.Getenv("TABULEIRO_TEST_DATABASE_URL")
	if dsn == "" {
		t.Fatal("TABULEIRO_TEST_DATABASE_URL is not set: run ./scripts/test.sh, which starts PostgreSQL and sets it")
	}
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatalf("connect test database: %v", err)
	}
	schema := fmt.Sprintf("test_lobby_%016x", rand.Uint64())
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse TABULEIRO_TEST_DATABASE_URL: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect test schema: %v", err)
	}
	t.Cleanup(pool.Close)
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	if _, err := migrations.Up(ctx, db); err != nil {
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
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := migrations.UpSQLite(context.Background(), db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}
