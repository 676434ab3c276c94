// Package serve is `tabuleiro serve`, every service and the web client in
// this process, and the hidden `embedded-redis` its test steps use.
package serve

import (
	"fmt"
	"log/slog"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
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
	var accessLog bool
	c := &cobra.Command{
		Use:   "serve",
		Short: e.T("cmd.serve.short"),
		Long: "Run the lobby, match and bot services in this process, all on one gRPC port,\n" +
			"with the same service code as production. Live state goes to an embedded Redis\n" +
			"(miniredis with a write-ahead log in the data directory, fsync'd before any\n" +
			"reply, so that a crash loses nothing acknowledged) unless --redis-url is\n" +
			"given; results (history, ratings, stats) go to an embedded SQLite file in the\n" +
			"data directory unless --database-url (PostgreSQL) is given. The token key is\n" +
			"generated once and kept in the data directory. The port serves gRPC,\n" +
			"gRPC-Web and Connect (browsers), and the web client at the URL printed;\n" +
			"--cors-origins lets pages of other origins call the API. Calls from loopback\n" +
			"are this computer's own and not rate-limited: behind a reverse proxy on this\n" +
			"host give --trusted-proxy 127.0.0.1, so that each player behind it is limited\n" +
			"by the address it names in X-Forwarded-For. Only warnings and\n" +
			"errors are logged (on stderr) unless --access-log (or TABULEIRO_ACCESS_LOG=1)\n" +
			"asks for a line per call. Passkeys (WebAuthn) are bound to this server's own\n" +
			"origin: http://localhost:PORT when it listens on loopback (open the web client\n" +
			"there, not at 127.0.0.1, to use them); behind a proxy on a domain give\n" +
			"--webauthn-rp-id DOMAIN and --webauthn-origin https://DOMAIN. Stops on Ctrl-C.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Server != "" {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("serve runs a server: --server does not apply")}
			}
			dir, err := f.Dir(e)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			origins, err := grpcserve.ParseOrigins(cors)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--cors-origins: %w", err)}
			}
			proxies, err := parseProxies(trustedProxies)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--trusted-proxy: %w", err)}
			}
			if (passkeyRPID == "") != (len(passkeyOrigins) == 0) {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--webauthn-rp-id and --webauthn-origin go together")}
			}
			for _, o := range passkeyOrigins {
				if parsed, err := grpcserve.ParseOrigins(o); err != nil || len(parsed) != 1 || parsed[0] == "*" {
					return &cli.ExitError{Code: 2, Err: fmt.Errorf("--webauthn-origin: %q is not an origin (https://host[:port])", o)}
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
				HTTPHandler:    web.Handler(), CORSOrigins: origins, TrustedProxies: proxies,
				PasskeyRPID: passkeyRPID, PasskeyOrigins: passkeyOrigins,
			})
			if err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			srv.WriteBanner(e.Stdout)
			if verbose {
				fmt.Fprintln(e.Stdout, e.T("serve.logs_all"))
			} else {
				fmt.Fprintln(e.Stdout, e.T("serve.logs_warnings"))
			}
			if err := srv.Wait(); err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			return nil
		},
	}
	f.Register(e, c)
	_ = c.Flags().MarkHidden("server") // serve is the server
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:7070", "address to listen on (HOST:PORT)")
	c.Flags().StringVar(&cors, "cors-origins", "", "comma-separated origins whose pages may call the API cross-origin (https://host[:port], or * for any); default same-origin only")
	c.Flags().StringSliceVar(&trustedProxies, "trusted-proxy", nil, "address or CIDR of a reverse proxy in front (e.g. 127.0.0.1 for one on this host): calls through it are limited per client address its X-Forwarded-For names; without it every call from loopback is unlimited")
	c.Flags().StringVar(&passkeyRPID, "webauthn-rp-id", "", "WebAuthn relying-party ID of passkeys: the site's domain (default: localhost on a loopback or unspecified address, the --addr host name otherwise; none for another IP address: passkeys off)")
	c.Flags().StringSliceVar(&passkeyOrigins, "webauthn-origin", nil, "origin whose pages may use passkeys (https://host[:port]; repeatable; with --webauthn-rp-id; default: this server's own)")
	c.Flags().BoolVar(&accessLog, "access-log", false, "log every call on stderr (also TABULEIRO_ACCESS_LOG=1); default: warnings and errors only")
	c.Flags().Int64Var(&compactBytes, "embedded-redis-compact-bytes", 0, "log growth that starts a compaction of the embedded Redis (default 4 MiB; tests)")
	_ = c.Flags().MarkHidden("embedded-redis-compact-bytes")
	return c
}

// parseProxies reads --trusted-proxy: addresses (one host) or CIDRs.
func parseProxies(vals []string) ([]netip.Prefix, error) {
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("an empty value is neither an address nor a CIDR (for example 127.0.0.1 or 10.0.0.0/8)")
		}
	}
	return clientaddr.ParsePrefixList(vals)
}
