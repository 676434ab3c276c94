// Package migrate is `tabuleiro migrate`: the schema migrations applied to
// a PostgreSQL database.
package migrate

import (
	"database/sql"
	"fmt"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/migrations"
)

func New(e *cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: e.T("cmd.migrate.short"),
		Long:  e.T("cmd.migrate.long"),
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url := e.Getenv("TABULEIRO_DATABASE_URL")
			if url == "" {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.migrate_no_url")}
			}
			db, err := sql.Open("pgx", url)
			if err != nil {
				return &cli.ExitError{Code: 1, Err: fmt.Errorf("open database: %w", err)}
			}
			defer func() { _ = db.Close() }()
			n, err := migrations.Up(c.Context(), db)
			if err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			fmt.Fprintln(e.Stdout, e.T("migrate.applied", "count", n))
			return nil
		},
	}
}
