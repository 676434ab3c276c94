package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// openFreshSchema connects to the test database with a new, empty schema
// first on the search path, dropped when the test ends.
func openFreshSchema(t *testing.T) *sql.DB {
	t.Helper()
	dsn := os.Getenv("TABULEIRO_TEST_DATABASE_URL")
	if dsn == "" {
		t.Fatal("TABULEIRO_TEST_DATABASE_URL is not set: run ./scripts/test.sh, which starts PostgreSQL and sets it")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	schema := fmt.Sprintf("test_migrations_%d", rand.Uint64())
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.WithoutCancel(t.Context()), "DROP SCHEMA "+schema+" CASCADE")
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
	return db
}

func TestUpIsIdempotent(t *testing.T) {
	t.Parallel()
	db := openFreshSchema(t)
	n, err := Up(t.Context(), db)
	if err != nil {
		t.Fatalf("first Up: %v", err)
	}
	entries, err := fsReadDir()
	if err != nil {
		t.Fatal(err)
	}
	if n != entries {
		t.Errorf("first Up applied %d migrations, want %d", n, entries)
	}
	n, err = Up(t.Context(), db)
	if err != nil {
		t.Fatalf("second Up: %v", err)
	}
	if n != 0 {
		t.Errorf("second Up applied %d migrations, want 0", n)
	}
}

func fsReadDir() (int, error) {
	entries, err := files.ReadDir("sql")
	return len(entries), err
}
