package sqlstore_test

import (
	"database/sql"
	"testing"

	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/recorder/storetest"
	"tabuleiro.dev/services/match/internal/sqlstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) (recorder.Writer, *sql.DB) {
		db := testenv.Postgres(t)
		return sqlstore.New(db), db
	})
}

func TestSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) (recorder.Writer, *sql.DB) {
		db := testenv.SQLite(t)
		return sqlstore.New(db), db
	})
}
