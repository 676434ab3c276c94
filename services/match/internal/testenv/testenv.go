// Package testenv connects tests to the real Redis and PostgreSQL that
// scripts/test.sh starts, isolating each test: a random key prefix in
// Redis (deleted afterwards) and a fresh schema, migrated, in Postgres. It
// wraps tabuleiro.dev/pkg/platform/testenv with what is the match's own.
package testenv

import (
	"database/sql"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/migrations"
	"tabuleiro.dev/pkg/platform/testenv"
)

// Redis returns a client of the test Redis and a random key prefix whose
// keys are deleted when the test ends.
func Redis(t testing.TB) (redis.UniversalClient, string) {
	t.Helper()
	return testenv.Redis(t, "match")
}

// Postgres returns a connection whose search path is a fresh schema with
// every migration applied; the schema is dropped when the test ends.
func Postgres(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", testenv.PostgresDSN(t))
	return testenv.Migrated(t, db, err, migrations.Up)
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

// Eventually polls cond every few milliseconds until it holds, failing the
// test if it never does: within is what it takes on an idle machine, and
// the wait ends at the test's deadline or after a few minutes (see the
// platform's testenv.Eventually).
var Eventually = testenv.Eventually

// SQLite returns a migrated SQLite database in a file of the test's
// temporary directory, as the one-process mode opens it.
func SQLite(t testing.TB) *sql.DB {
	t.Helper()
	db, err := migrations.OpenSQLite(filepath.Join(t.TempDir(), "results.db"))
	return testenv.Migrated(t, db, err, migrations.UpSQLite)
}
