package local

import (
	"database/sql"
	"os"
	"testing"
)

func openPrivate(t *testing.T, dir string) (*privatePostgres, *sql.DB) {
	t.Helper()
	p, err := startPostgres(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", p.URL())
	if err != nil {
		t.Fatal(err)
	}
	return p, db
}

// The private PostgreSQL starts from the local installation on a new
// cluster, keeps what was written across a stop and a start, lets a
// second process join the running server, and stops.
func TestPrivatePostgresKeepsData(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		return // initdb and two server starts: run without -short
	}
	dir := postgresDir(t.TempDir())
	t.Cleanup(func() { _ = os.RemoveAll(dir) })

	p, db := openPrivate(t, dir)
	for _, q := range []string{"CREATE TABLE kept (v text)", "INSERT INTO kept VALUES ('x')"} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	if err := p.Close(t.Context()); err != nil {
		t.Fatal(err)
	}

	p, db = openPrivate(t, dir)
	defer func() { _ = p.Close(t.Context()) }()
	defer func() { _ = db.Close() }()
	joined, jdb := openPrivate(t, dir)
	_ = jdb.Close()
	if joined.ours || joined.port != p.port {
		t.Errorf("a second start did not join the running server (ours %v, port %d, want %d)", joined.ours, joined.port, p.port)
	}
	var v string
	if err := db.QueryRowContext(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil || v != "x" {
		t.Errorf("kept row %q (err %v), want x", v, err)
	}
}
