// Package session is how a subcommand reaches a server as the person at
// this terminal: the flags that choose the server (an address, or the
// one-process mode started in this process on the data directory), the
// connection, and the identity kept per server in the data directory.
package session

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/platform/auth"
)

// Flags choose the server: a given address, or the one-process mode
// started in the background of this process.
type Flags struct {
	Server      string
	DataDir     string
	RedisURL    string
	DatabaseURL string
	// Keep, when set, is how long an unfinished game of the local mode
	// waits for its player: the match service's reconnection window and
	// first-ply timeout (`play` only; nobody else plays on its server).
	Keep time.Duration
}

// DefaultKeep is how long `play` keeps an unfinished local game.
const DefaultKeep = 30 * 24 * time.Hour

// Register adds the flags to c.
func (f *Flags) Register(e *cli.Env, c *cobra.Command) {
	c.Flags().StringVar(&f.Server, "server", "", e.T("flag.server"))
	c.Flags().StringVar(&f.DataDir, "data-dir", "", e.T("flag.data_dir"))
	c.Flags().StringVar(&f.RedisURL, "redis-url", "", e.T("flag.redis_url"))
	c.Flags().StringVar(&f.DatabaseURL, "database-url", "", e.T("flag.database_url"))
}

// Dir is the data directory: --data-dir, $TABULEIRO_DATA_DIR or the
// default.
func (f *Flags) Dir(e *cli.Env) (string, error) {
	if f.DataDir != "" {
		return f.DataDir, nil
	}
	if d := e.Getenv("TABULEIRO_DATA_DIR"); d != "" {
		return d, nil
	}
	return local.DataDir(e.Getenv)
}

// Conn is a client of a server, and the local server when this process
// runs it.
type Conn struct {
	C       *client.Client
	Local   *local.Server // nil when the server is another process
	DataDir string
	key     string // the identity key: the server's address, or "local"
	stop    func() error
	p       *text.Printer
}

// Connect dials the server, starting the one-process mode first when no
// address is given. Its logs go to server.log in the data directory, so
// that they never mix with a terminal game. Stop shuts it down and waits.
func (f *Flags) Connect(ctx context.Context, e *cli.Env) (*Conn, error) {
	dir, err := f.Dir(e)
	if err != nil {
		return nil, &cli.ExitError{Code: 2, Err: err}
	}
	conn := &Conn{DataDir: dir, key: f.Server, stop: func() error { return nil }, p: e.P}
	addr := f.Server
	if addr == "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		srv, err := local.Start(sctx, local.Options{
			DataDir: dir, RedisURL: f.RedisURL, DatabaseURL: f.DatabaseURL,
			Logger:          slog.New(slog.NewJSONHandler(logf, nil)),
			ReconnectWindow: f.Keep, FirstPlyTimeout: f.Keep,
		})
		if err != nil {
			cancel()
			_ = logf.Close()
			if busy := e.BusyDataDir(err); busy != nil { // it says what happened and what to do
				err = busy
			} else {
				err = e.Errorf("error.local_start", "error", err)
			}
			return nil, &cli.ExitError{Code: 1, Err: err}
		}
		conn.Local, conn.key, addr = srv, "local", srv.Addr()
		conn.stop = func() error {
			cancel()
			err := srv.Wait()
			_ = logf.Close()
			return err
		}
	}
	c, err := client.Dial(addr)
	if err != nil {
		_ = conn.stop()
		return nil, &cli.ExitError{Code: 1, Err: err}
	}
	conn.C = c
	inner := conn.stop
	conn.stop = func() error { _ = c.Close(); return inner() }
	return conn, nil
}

// Stop closes the connection and stops the local server, if any, waiting
// for it.
func (cn *Conn) Stop() error { return cn.stop() }

// ServiceCredentials are the credentials of a call made as a service
// (a replay's scripted players, a review): the local server's own, or
// a service token signed with the key in TABULEIRO_TOKEN_KEY.
func (cn *Conn) ServiceCredentials(e *cli.Env) (credentials.PerRPCCredentials, error) {
	if cn.Local != nil {
		return cn.Local.ServiceCredentials(), nil
	}
	if e.Getenv("TABULEIRO_TOKEN_KEY") == "" {
		return nil, &cli.ExitError{Code: 2, Err: e.Errorf("error.token_key_unset")}
	}
	key, err := auth.ParseKey(e.Getenv("TABULEIRO_TOKEN_KEY"))
	if err != nil {
		return nil, &cli.ExitError{Code: 2, Err: e.Errorf("error.replay_token_key", "error", err)}
	}
	iss, err := auth.NewIssuer(key)
	if err != nil {
		return nil, &cli.ExitError{Code: 2, Err: err}
	}
	return auth.NewServiceCredentials(iss, "tabuleiro", time.Hour), nil
}

// Identity is the person at this terminal on this server, called name;
// extra > 0 is the second player of a local game, named after the first
// ("Ana 2", as the web names its partner), or "Player 2" when name is "".
func (cn *Conn) Identity(ctx context.Context, name string, extra int) (client.Player, error) {
	key := cn.key
	if extra > 0 {
		key = fmt.Sprintf("%s#%d", key, extra+1)
		if r := []rune(strings.TrimSpace(name)); len(r) > 0 {
			name = strings.TrimSpace(string(r[:min(len(r), 20)])) + " " + fmt.Sprint(extra+1)
		} else {
			name = text.T(cn.p, "player.extra", "n", fmt.Sprint(extra+1))
		}
	}
	return cn.C.Identity(ctx, cn.identities(), key, name)
}

// identities is the file that keeps this terminal's identities, one per
// server.
func (cn *Conn) identities() string { return filepath.Join(cn.DataDir, "identities.json") }

// KnownName is the display name this person already uses here (offline,
// or on another server), so that a new identity on a server carries the
// same name; "" when none is kept.
func (cn *Conn) KnownName() string {
	return client.KnownName(cn.identities())
}

// Rename changes the display name of the person at this terminal.
func (cn *Conn) Rename(ctx context.Context, p client.Player, name string) (client.Player, error) {
	return cn.C.Rename(ctx, cn.identities(), cn.key, p, name)
}

// Keep makes p the person at this terminal on this server (a sign-in
// to an account, replacing the guest kept before, if any).
func (cn *Conn) Keep(p client.Player) error {
	return client.Keep(cn.identities(), cn.key, p)
}

// Known is the identity kept for this server, without signing in or
// refreshing; its ID is "" when none is kept.
func (cn *Conn) Known() client.Player {
	return client.Known(cn.identities(), cn.key)
}

// Server is the server this connection reaches as the player names it:
// its address, or "" for the one-process mode.
func (cn *Conn) Server() string {
	if cn.Local != nil {
		return ""
	}
	return cn.key
}

// KnownExtra returns the id of the extra local player (the second player
// of games at one keyboard) if one was ever signed in here, else "".
func (cn *Conn) KnownExtra(extra int) string {
	return client.KnownIdentity(cn.identities(), fmt.Sprintf("%s#%d", cn.key, extra+1))
}

// WithIdentity connects (see Connect), signs in as the person at this
// terminal and calls do.
func (f *Flags) WithIdentity(ctx context.Context, e *cli.Env, do func(cn *Conn, me client.Player) error) error {
	cn, err := f.Connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.Stop() }()
	me, err := cn.Identity(ctx, cmp.Or(cn.KnownName(), DefaultName(e)), 0)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: ReachErr(e.P, err, cn.C.Target())}
	}
	return do(cn, me)
}

// OnlineHint, for history and stats without --server, says on stderr that
// they cover the games played on this computer, and how to see a
// server's: each server keeps its own players and games.
func (f *Flags) OnlineHint(e *cli.Env, cmd string) {
	if f.Server != "" {
		return
	}
	termtext.Eprintln(e.Stderr, e.T("records.local_hint", "command", cmd))
}

// DefaultName is the display name of a new identity: $USER when it is 2
// to 24 characters long, else the player's language's word for guest
// ("player.guest": "Guest", "Convidado", "Invitado") and four random
// capital letters, so that two players of one machine are not both called
// the same. The identity keeps it afterwards (KnownName), whatever the
// language (docs/playing.md).
func DefaultName(e *cli.Env) string {
	name := strings.TrimSpace(e.Getenv("USER"))
	if len([]rune(name)) < 2 || len([]rune(name)) > 24 {
		name = e.T("player.guest", "letters", strings.ToUpper(rand.Text()[:4]))
	}
	return name
}

// dialFailure finds why a connection failed in a gRPC error's text.
var dialFailure = regexp.MustCompile(`(connect: [^"]+|no such host|i/o timeout|context deadline exceeded)`)

// ReachErr says in words that the server cannot be reached, instead of
// gRPC's transport error; other errors pass unchanged.
func ReachErr(p *text.Printer, err error, addr string) error {
	if status.Code(err) != codes.Unavailable && !strings.Contains(err.Error(), "Error while dialing") {
		return err
	}
	why := text.T(p, "error.unavailable")
	if m := dialFailure.FindString(err.Error()); m != "" {
		why = strings.TrimPrefix(m, "connect: ")
	}
	return errors.New(text.T(p, "error.unreachable", "server", addr, "why", why))
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+,=~", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
