package serve

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/walredis"
)

func NewEmbeddedRedis(e *cli.Env) *cobra.Command {
	var addr, dir string
	c := &cobra.Command{
		Use:    "embedded-redis",
		Short:  e.T("cmd.redis.short"),
		Hidden: true,
		Long: "Run the embedded Redis that the one-process mode uses (miniredis with a\n" +
			"write-ahead log fsync'd before every reply and keys expiring on their\n" +
			"deadlines) and print its URL. The services' Redis test suites run against it\n" +
			"with TABULEIRO_TEST_REDIS_URL set to that URL, so that both the real and the\n" +
			"embedded store are covered by the same tests. Without --dir the log goes to a\n" +
			"temporary directory, removed on exit.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := dir
			if d == "" {
				tmp, err := os.MkdirTemp("", "tabuleiro-embedded-redis-")
				if err != nil {
					return &cli.ExitError{Code: 1, Err: err}
				}
				defer func() { _ = os.RemoveAll(tmp) }()
				d = tmp
			}
			r, err := walredis.Open(walredis.Options{Dir: d, Addr: addr})
			if err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			defer func() { _ = r.Close() }()
			fmt.Fprintf(e.Stdout, "%s\n", r.URL())
			<-cmd.Context().Done()
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:6399", "address to listen on")
	c.Flags().StringVar(&dir, "dir", "", "directory of the write-ahead log and snapshots (default: a temporary one)")
	return c
}
