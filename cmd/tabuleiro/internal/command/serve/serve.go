// Package serve is `tabuleiro serve`, every service and the web client in
// this process, and the hidden `embedded-redis` its test steps use.
package serve

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/web"
)

func New(e *cli.Env) *cobra.Command {
	var f session.Flags
	var addr, cors string
	var trustedProxies, passkeyOrigins []string
	var passkeyRPID string
	var compactBytes int64
	var accessLog, mixed bool
	c := &cobra.Command{
		Use:   "serve",
		Short: e.T("cmd.serve.short"),
		Long:  e.T("cmd.serve.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Server != "" {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.serve_server")}
			}
			dir, err := f.Dir(e)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			origins, err := grpcserve.ParseOrigins(cors)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--cors-origins: %w", err)}
			}
			proxies, err := parseProxies(e, trustedProxies)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--trusted-proxy: %w", err)}
			}
			if (passkeyRPID == "") != (len(passkeyOrigins) == 0) {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.serve_webauthn_pair")}
			}
			for _, o := range passkeyOrigins {
				if parsed, err := grpcserve.ParseOrigins(o); err != nil || len(parsed) != 1 || parsed[0] == "*" {
					return &cli.ExitError{Code: 2, Err: e.Errorf("error.serve_webauthn_origin", "origin", strconv.Quote(o))}
				}
			}
			// Quiet by default: warnings and errors only, after the
			// banner; every call's line (the services' access log) with
			// --access-log or TABULEIRO_ACCESS_LOG=1.
			verbose := accessLog || e.Getenv("TABULEIRO_ACCESS_LOG") == "1"
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelDebug // the services log each call at DEBUG
			}
			srv, err := local.Start(cmd.Context(), local.Options{
				Addr: addr, DataDir: dir, RedisURL: f.RedisURL, DatabaseURL: f.DatabaseURL,
				Logger:            slog.New(slog.NewJSONHandler(e.Stderr, &slog.HandlerOptions{Level: level})),
				RedisCompactBytes: compactBytes,
				// A browser's game against a bot without a clock waits as
				// the terminal's does; games with a clock or between
				// people keep the services' windows.
				UntimedBotWait: session.DefaultKeep,
				HTTPHandler:    web.Handler(), CORSOrigins: origins, TrustedProxies: proxies, MixedConnections: mixed,
				PasskeyRPID: passkeyRPID, PasskeyOrigins: passkeyOrigins,
			})
			if err != nil {
				if busy := e.BusyDataDir(err); busy != nil {
					err = busy
				} else if errors.Is(err, syscall.EADDRINUSE) {
					err = e.Errorf("error.addr_in_use", "addr", addr)
				}
				return &cli.ExitError{Code: 1, Err: err}
			}
			_, _ = io.WriteString(e.Stdout, banner(e, srv, verbose, termtext.Width(e.Stdout)))
			if err := srv.Wait(); err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			return nil
		},
	}
	f.Register(e, c)
	_ = c.Flags().MarkHidden("server") // serve is the server
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:7070", e.T("flag.serve.addr"))
	c.Flags().StringVar(&cors, "cors-origins", "", e.T("flag.serve.cors"))
	c.Flags().StringSliceVar(&trustedProxies, "trusted-proxy", nil, e.T("flag.serve.trusted_proxy"))
	c.Flags().StringVar(&passkeyRPID, "webauthn-rp-id", "", e.T("flag.serve.webauthn_rp_id"))
	c.Flags().StringSliceVar(&passkeyOrigins, "webauthn-origin", nil, e.T("flag.serve.webauthn_origin"))
	c.Flags().BoolVar(&mixed, "mixed-connections", false, e.T("flag.serve.mixed_connections"))
	c.Flags().BoolVar(&accessLog, "access-log", false, e.T("flag.serve.access_log"))
	c.Flags().Int64Var(&compactBytes, "embedded-redis-compact-bytes", 0, e.T("flag.serve.compact_bytes"))
	_ = c.Flags().MarkHidden("embedded-redis-compact-bytes")
	return c
}

// banner says, in the player's language and wrapped to w columns, where
// serve listens, which stores keep what, and what it logs.
func banner(e *cli.Env, srv *local.Server, verbose bool, w int) string {
	st := srv.Stores()
	live := e.T("serve.live_redis", "url", st.RedisURL)
	if st.EmbeddedRedisDir != "" {
		live = e.T("serve.live_embedded", "dir", st.EmbeddedRedisDir)
	}
	results := e.T("serve.results_postgres", "url", st.DatabaseURL)
	if st.SQLiteFile != "" {
		results = e.T("serve.results_sqlite", "file", st.SQLiteFile)
	}
	logs := e.T("serve.logs_warnings")
	if verbose {
		logs = e.T("serve.logs_all")
	}
	return termtext.Columns([][2]string{
		{"", e.T("serve.serving", "addr", srv.Addr())},
		{e.T("serve.label.web"), e.T("serve.web", "url", srv.URL())},
		{e.T("serve.label.live"), live},
		{e.T("serve.label.results"), results},
		{e.T("serve.label.data"), e.T("serve.data", "dir", st.DataDir)},
		{e.T("serve.label.logs"), logs},
	}, 2, w)
}

// parseProxies reads --trusted-proxy: addresses (one host) or CIDRs.
func parseProxies(e *cli.Env, vals []string) ([]netip.Prefix, error) {
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			return nil, e.Errorf("error.serve_empty_proxy")
		}
	}
	return clientaddr.ParsePrefixList(vals)
}
