package main

import (
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/spf13/cobra"
)

func newEmbeddedRedisCommand(e *env) *cobra.Command {
	var addr string
	c := &cobra.Command{
		Use:    "embedded-redis",
		Short:  "Run the embedded Redis of the one-process mode alone, until interrupted",
		Hidden: true,
		Long: "Run the embedded Redis (miniredis, keys expiring on the wall clock) that the\n" +
			"one-process mode uses, and print its URL. The services' Redis test suites run\n" +
			"against it with TABULEIRO_TEST_REDIS_URL set to that URL, so that both the real\n" +
			"and the embedded store are covered by the same tests.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m := miniredis.NewMiniRedis()
			m.ClockTTL(true)
			if err := m.StartAddr(addr); err != nil {
				return &exitError{code: 1, err: err}
			}
			defer m.Close()
			fmt.Fprintf(e.stdout, "redis://%s/0\n", m.Addr())
			<-cmd.Context().Done()
			return nil
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:6399", "address to listen on")
	return c
}
