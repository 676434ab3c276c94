package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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

func openSQLite(t *testing.T) *sql.DB {
	t.Helper()
	db, err := OpenSQLite(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestUpSQLiteIsIdempotent(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	n, err := UpSQLite(t.Context(), db)
	if err != nil {
		t.Fatalf("first UpSQLite: %v", err)
	}
	entries, err := fsReadDir()
	if err != nil {
		t.Fatal(err)
	}
	if n != entries {
		t.Errorf("first UpSQLite applied %d migrations, want %d", n, entries)
	}
	if n, err = UpSQLite(t.Context(), db); err != nil || n != 0 {
		t.Errorf("second UpSQLite applied %d migrations (%v), want 0", n, err)
	}
	var mode string
	if err := db.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q (%v), want wal", mode, err)
	}
}

// Both dialects have the same migration files (names, so versions) and
// bring up the same tables with the same columns in the same order.
func TestDialectsAgree(t *testing.T) {
	t.Parallel()
	names := func(dir string) []string {
		entries, err := files.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if pg, lite := names("sql"), names("sqlite"); !slices.Equal(pg, lite) {
		t.Fatalf("migration files differ:\n  sql/    %v\n  sqlite/ %v", pg, lite)
	}

	pg := openFreshSchema(t)
	if _, err := Up(t.Context(), pg); err != nil {
		t.Fatal(err)
	}
	lite := openSQLite(t)
	if _, err := UpSQLite(t.Context(), lite); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"schema_origin", "games", "players", "ratings", "rating_changes"} {
		want := columns(t, pg, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
		got := columns(t, lite, `SELECT name FROM pragma_table_info($1) ORDER BY cid`, table)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("table %s: SQLite columns %v, PostgreSQL %v", table, got, want)
		}
	}
}

func columns(t *testing.T, db *sql.DB, query, table string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query, table)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
