// Package testenv is for tests only: it connects them to the real Redis
// and PostgreSQL that scripts/test.sh starts (named by
// TABULEIRO_TEST_REDIS_URL and TABULEIRO_TEST_DATABASE_URL) and isolates
// each test in a random Redis key prefix and a fresh Postgres schema, both
// removed when the test ends. The services' own testenv packages build on
// it (applying their migrations, say); production code must not import it.
package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/redisconn"
)

// RedisURL returns TABULEIRO_TEST_REDIS_URL, failing the test when it is
// not set.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TABULEIRO_TEST_REDIS_URL")
	if u == "" {
		t.Fatal("TABULEIRO_TEST_REDIS_URL is not set: run ./scripts/test.sh, which starts Redis and sets it")
	}
	return u
}

// Redis returns a client of the test Redis and a key prefix no other test
// uses, "test-<name>-<random>:"; the prefix's keys are deleted and the
// client closed when the test ends. The URL may name one server or a
// cluster (redisconn.Open's forms): a *redis.ClusterClient then.
func Redis(t testing.TB, name string) (redis.UniversalClient, string) {
	t.Helper()
	rdb := open(t, "")
	prefix := fmt.Sprintf("test-%s-%016x:", name, rand.Uint64())
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		del := func(ctx context.Context, c *redis.Client) error {
			var keys []string
			iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
			for iter.Next(ctx) {
				keys = append(keys, iter.Val())
			}
			for _, k := range keys { // one by one: on a cluster, each in its own slot
				c.Del(ctx, k)
			}
			return nil
		}
		if cc, ok := rdb.(*redis.ClusterClient); ok {
			_ = cc.ForEachMaster(ctx, del)
		} else {
			_ = del(ctx, rdb.(*redis.Client))
		}
		_ = rdb.Close()
	})
	if err := redisconn.Ping(rdb)(t.Context()); err != nil {
		t.Fatalf("ping test Redis: %v", err)
	}
	return rdb, prefix
}

// OpenRedis returns a new client of the test Redis (closed when the test
// ends), named name (CLIENT SETNAME) when not empty: for a test that adds
// hooks to its own client, or watches one connection.
func OpenRedis(t testing.TB, name string) redis.UniversalClient {
	t.Helper()
	rdb := open(t, name)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func open(t testing.TB, name string) redis.UniversalClient {
	t.Helper()
	// A busy machine (tests of every package at once, -race) can delay a
	// reply by seconds: the client's default 3 s read timeout then fails
	// a test for the machine's speed (and go-redis sends the command
	// again). The test's own deadline bounds a hang.
	u, err := url.Parse(RedisURL(t))
	if err != nil {
		t.Fatalf("TABULEIRO_TEST_REDIS_URL: %v", err)
	}
	q := u.Query()
	for k, v := range map[string]string{"pool_size": "64", "dial_timeout": "60s", "read_timeout": "60s", "write_timeout": "60s"} {
		if !q.Has(k) {
			q.Set(k, v)
		}
	}
	if name != "" {
		q.Set("client_name", name)
	}
	u.RawQuery = q.Encode()
	rdb, err := redisconn.Open(u.String())
	if err != nil {
		t.Fatalf("TABULEIRO_TEST_REDIS_URL: %v", err)
	}
	return rdb
}

// PostgresDSN returns TABULEIRO_TEST_DATABASE_URL with a fresh, empty
// schema as its search path; the schema is dropped when the test ends.
// Callers apply whatever migrations they need.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("TABULEIRO_TEST_DATABASE_URL")
	if dsn == "" {
		t.Fatal("TABULEIRO_TEST_DATABASE_URL is not set: run ./scripts/test.sh, which starts PostgreSQL and sets it")
	}
	schema := fmt.Sprintf("test_%016x", rand.Uint64())
	admin(t, dsn, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { admin(t, dsn, "DROP SCHEMA "+schema+" CASCADE") })
	if !strings.Contains(dsn, "://") { // the keyword/value form
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse TABULEIRO_TEST_DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// admin runs one statement on a connection of its own, so that a test
// holds no connection between creating its schema and dropping it.
func admin(t testing.TB, dsn, stmt string) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect test database: %v", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// Migrated fails the test if opening db failed (err), closes db when the
// test ends and applies the migrations up, returning db.
func Migrated(t testing.TB, db *sql.DB, err error, up func(context.Context, *sql.DB) (int, error)) *sql.DB {
	t.Helper()
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := up(t.Context(), db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// Eventually polls cond every few milliseconds until it holds, failing the
// test with what it waited for and how long if it still does not at the
// earliest of Deadline(t) and waitLimit(within), but never before within.
// within is what the condition takes on an idle machine; a busy one may
// take many times longer, and that is no failure; a condition that never
// holds is a defect of the test or the code, and costs minutes, not the
// whole run's timeout.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	eventually(t, within, waitLimit(within), what, cond)
}

// maxWait and busyFactor bound Eventually's wait. Callers give within as a
// generous bound for an idle machine (5 to 15 s, the recorder's prune test
// more as it doubles its threshold); their conditions hold in well under a
// second there, and a 2-core machine running every package's tests under
// -race at once is many times slower, so a few minutes is a hang.
const (
	maxWait    = 3 * time.Minute
	busyFactor = 10
)

// waitLimit is how long Eventually waits for a condition that takes within
// on an idle machine: maxWait, or busyFactor times within if that is more.
func waitLimit(within time.Duration) time.Duration {
	return max(maxWait, busyFactor*within)
}

// eventually is Eventually with its limit given (the tests give a short one).
func eventually(t testing.TB, within, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	end, why := start.Add(limit), fmt.Sprintf("its limit of %v", limit)
	if d := Deadline(t); d.Before(end) {
		end, why = d, "the test's deadline"
	}
	if floor := start.Add(within); end.Before(floor) {
		end, why = floor, fmt.Sprintf("the %v it takes on an idle machine", within)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up after %v (%s) waiting for %s", time.Since(start).Round(time.Millisecond), why, what)
		}
		<-tick.C
	}
}
