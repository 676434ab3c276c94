package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/local"
)

func newServeCommand(e *env) *cobra.Command {
	var f serverFlags
	var addr string
	var compactBytes int64
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the lobby, match and bot services in one process, on one port",
		Long: "Run the lobby, match and bot services in this process, all on one gRPC port,\n" +
			"with the same service code as production. Live state goes to an embedded Redis\n" +
			"(miniredis with a write-ahead log in the data directory, fsync'd before any\n" +
			"reply, so that a crash loses nothing acknowledged) unless --redis-url is\n" +
			"given; results (history, ratings, stats) go to an embedded SQLite file in the\n" +
			"data directory unless --database-url (PostgreSQL) is given. The token key is\n" +
			"generated once and kept in the data directory. Stops on Ctrl-C.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.server != "" {
				return &exitError{code: 2, err: fmt.Errorf("serve runs a server: --server does not apply")}
			}
			dir, err := f.dir(e)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			srv, err := local.Start(cmd.Context(), local.Options{
				Addr: addr, DataDir: dir, RedisURL: f.redisURL, DatabaseURL: f.databaseURL,
				Logger:            slog.New(slog.NewJSONHandler(e.stderr, nil)),
				RedisCompactBytes: compactBytes,
			})
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			srv.WriteBanner(e.stdout)
			if err := srv.Wait(); err != nil {
				return &exitError{code: 1, err: err}
			}
			return nil
		},
	}
	f.register(c)
	_ = c.Flags().MarkHidden("server") // serve is the server
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:7070", "address to listen on (HOST:PORT)")
	c.Flags().Int64Var(&compactBytes, "embedded-redis-compact-bytes", 0, "log growth that starts a compaction of the embedded Redis (default 4 MiB; tests)")
	_ = c.Flags().MarkHidden("embedded-redis-compact-bytes")
	return c
}
