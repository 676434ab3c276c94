// Package testenv connects tests to the real Redis and PostgreSQL that
// scripts/test.sh starts, isolating each test: a random key prefix in
// Redis (deleted afterwards) and a fresh schema, migrated, in Postgres.
package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/migrations"
)

// Redis returns a client of the test Redis and a random key prefix whose
// keys are deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	u := os.Getenv("TABULEIRO_TEST_REDIS_URL")
	if u == "" {
		t.Fatal("TABULEIRO_TEST_REDIS_URL is not set: run ./scripts/test.sh, which starts Redis and sets it")
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	opt.PoolSize = 64
	rdb := redis.NewClient(opt)
	prefix := fmt.Sprintf("test-match-%x:", rand.Uint64())
	t.Cleanup(func() {
		ctx := context.Background()
		var keys []string
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
		_ = rdb.Close()
	})
	return rdb, prefix
}

// Postgres returns a connection whose search path is a fresh schema with
// every migration applied; the schema is dropped when the test ends.
func Postgres(t testing.TB) *sql.DB {
	t.Helper()
	dsn := os.Getenv("TABULEIRO_TEST_DATABASE_URL")
	if dsn == "" {
		t.Fatal("TABULEIRO_TEST_DATABASE_URL is not set: run ./scripts/test.sh, which starts PostgreSQL and sets it")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("test_match_%x", rand.Uint64())
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		_ = admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := migrations.Up(context.Background(), db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// Clock is a settable clock for tests.
type Clock struct{ ms atomic.Int64 }

// NewClock returns a clock at a fixed start.
func NewClock() *Clock {
	c := &Clock{}
	c.ms.Store(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli())
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return time.UnixMilli(c.ms.Load()) }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// Eventually polls cond every few milliseconds until it holds or the
// deadline passes.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		<-tick.C
	}
}

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
