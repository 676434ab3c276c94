// Package migrations holds Tabuleiro's PostgreSQL schema, applied in order
// by goose (github.com/pressly/goose/v3). The files in sql/ are the only
// way the schema changes. Numbering: 0001–0099 shared tables, 0100–0199
// the match service's (finished games), 0200–0299 the lobby's (players,
// ratings). Every service that owns tables calls Up at start-up; a
// Postgres advisory lock keeps concurrent instances from racing.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed sql/*.sql
var files embed.FS

// FS returns the migration files, for tools that apply them otherwise.
func FS() fs.FS {
	sub, err := fs.Sub(files, "sql")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	return sub
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
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS(), goose.WithSessionLocker(locker))
	if err != nil {
		return 0, fmt.Errorf("migrations: new provider: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("migrations: up: %w", err)
	}
	return len(res), nil
}
