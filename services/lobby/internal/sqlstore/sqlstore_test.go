package sqlstore_test

import (
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
	"tabuleiro.dev/services/lobby/internal/storetest"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) (storetest.Store, *sql.DB) {
		pool := testenv.Postgres(t)
		db := stdlib.OpenDBFromPool(pool)
		t.Cleanup(func() { _ = db.Close() })
		return sqlstore.NewPostgres(pool, glicko.Default(), nil), db
	})
}

func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) (storetest.Store, *sql.DB) {
		db := testenv.SQLite(t)
		return sqlstore.NewSQLite(db, glicko.Default(), nil), db
	})
}
