// Package migrate is `tabuleiro migrate`: the schema migrations applied to
// a PostgreSQL database.
package migrate

import (
	"database/sql"
	"errors"
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
		Long: "Apply every pending migration of migrations/ to the PostgreSQL database\n" +
			"named by TABULEIRO_DATABASE_URL, then exit. Running it again applies nothing.\n" +
			"The compose stack runs it once before the services start.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url := e.Getenv("TABULEIRO_DATABASE_URL")
			if url == "" {
				return &cli.ExitError{Code: 2, Err: errors.New("TABULEIRO_DATABASE_URL is not set")}
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
			fmt.Fprintf(e.Stdout, "applied %d migrations\n", n)
			return nil
		},
	}
}
