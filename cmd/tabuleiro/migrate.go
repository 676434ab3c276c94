package main

import (
	"database/sql"
	"errors"
	"fmt"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/spf13/cobra"

	"tabuleiro.dev/migrations"
)

func newMigrateCommand(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: e.t("cmd.migrate.short"),
		Long: "Apply every pending migration of migrations/ to the PostgreSQL database\n" +
			"named by TABULEIRO_DATABASE_URL, then exit. Running it again applies nothing.\n" +
			"The compose stack runs it once before the services start.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url := e.getenv("TABULEIRO_DATABASE_URL")
			if url == "" {
				return &exitError{code: 2, err: errors.New("TABULEIRO_DATABASE_URL is not set")}
			}
			db, err := sql.Open("pgx", url)
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("open database: %w", err)}
			}
			defer func() { _ = db.Close() }()
			n, err := migrations.Up(c.Context(), db)
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintf(e.stdout, "applied %d migrations\n", n)
			return nil
		},
	}
}
