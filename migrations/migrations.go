// Package migrations holds Tabuleiro's SQL schema, applied in order by
// goose (github.com/pressly/goose/v3). The files in sql/ (PostgreSQL) are
// the only way the schema changes. Numbering: 0001–0099 shared tables,
// 0100–0199 the match service's (finished games), 0200–0299 the lobby's
// (players, ratings); every later change, whoever owns the table, takes
// the next hundred (0300 on), since goose refuses a migration numbered
// below one a database already has. Every service that owns tables calls Up at start-up;
// a Postgres advisory lock keeps concurrent instances from racing.
//
// sqlite/ holds the same schema for SQLite, the one-process mode's
// embedded store: the same files with the same version numbers, differing
// only in column types. A change to one is made to both. UpSQLite applies
// them to a database opened with OpenSQLite.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

//go:embed sql/*.sql sqlite/*.sql
var files embed.FS

// FS returns the migration files, for tools that apply them otherwise.
func FS() fs.FS { return sub("sql") }

// SQLiteFS returns the SQLite migration files.
func SQLiteFS() fs.FS { return sub("sqlite") }

func sub(dir string) fs.FS {
	s, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the embedded directories always exist
	}
	return s
}

// Up applies every pending migration to the PostgreSQL database db. It
// returns the number applied.
func Up(ctx context.Context, db *sql.DB) (int, error) {
	// Retry the advisory lock every second (goose's shortest period, its
	// default is 5 s) for up to 5 minutes: instances starting together wait
	// less for the one that migrates.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return 0, fmt.Errorf("migrations: new locker: %w", err)
	}
	return up(ctx, goose.DialectPostgres, db, FS(), goose.WithSessionLocker(locker))
}

// UpSQLite applies every pending migration to the SQLite database db
// (opened with OpenSQLite) and returns the number applied. SQLite's own
// write lock serialises concurrent callers.
func UpSQLite(ctx context.Context, db *sql.DB) (int, error) {
	return up(ctx, goose.DialectSQLite3, db, SQLiteFS())
}

// up applies every pending migration of fsys to db, in dialect, and
// returns the number applied.
func up(ctx context.Context, dialect goose.Dialect, db *sql.DB, fsys fs.FS, opts ...goose.ProviderOption) (int, error) {
	p, err := goose.NewProvider(dialect, db, fsys, opts...)
	if err != nil {
		return 0, fmt.Errorf("migrations: new provider: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("migrations: up: %w", err)
	}
	return len(res), nil
}

// OpenSQLite opens (creating it if needed) the SQLite database file at
// path through the pure-Go driver modernc.org/sqlite, set up as the stores
// expect:
//   - WAL journal (readers never wait for the writer) and a 10 s busy
//     timeout, so that concurrent writers wait rather than fail;
//   - every transaction BEGIN IMMEDIATE: it takes the write lock at once,
//     so a read-then-write transaction (the ratings processor) never reads
//     a state another writer is about to change — SQLite's stand-in for
//     Postgres's row locks;
//   - time.Time stored as INTEGER microseconds since the epoch and read
//     back from TIMESTAMP columns, so times compare and sort as numbers.
func OpenSQLite(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	q.Set("_time_integer_format", "unix_micro")
	q.Set("_inttotime", "true")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.Ping(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}
