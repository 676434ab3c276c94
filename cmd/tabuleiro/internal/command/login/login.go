// Package login is `tabuleiro login`: signing this terminal in to a
// player's account on a server, so that every later command there (play,
// history, stats) is that account. By default it is the device flow of RFC
// 8628 (lobby.v1 StartDeviceSignIn, PollDeviceSignIn): the terminal shows
// a short code and a web page, the player approves it in a browser where
// they are signed in, and the terminal, polling, gets its own sign-in.
// With --password, or where the server does not serve the device flow, it
// asks for the username and the password instead (lobby.v1 SignIn), the
// password read without echo.
package login

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
)

// New is `tabuleiro login`.
func New(e *cli.Env) *cobra.Command {
	var (
		f        session.Flags
		password bool
		username string
	)
	c := &cobra.Command{
		Use:   "login",
		Short: e.T("cmd.login.short"),
		Long:  e.T("cmd.login.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cn, err := f.Connect(cmd.Context(), e)
			if err != nil {
				return err
			}
			defer func() { _ = cn.Stop() }()
			l := &login{e: e, cn: cn, username: username}
			// The guest kept here for this server, which the account
			// replaces: its games may come along (offerMerge).
			guest := cn.Known()
			var p client.Player
			if password {
				p, err = l.withPassword(cmd.Context())
			} else {
				p, err = l.withDevice(cmd.Context())
			}
			if err != nil {
				var exit *cli.ExitError
				if errors.As(err, &exit) {
					return err
				}
				if errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled {
					// Ctrl-C: say so in the player's words, not "context canceled".
					return &cli.ExitError{Code: 1, Err: errors.New(e.T("login.interrupted"))}
				}
				return &cli.ExitError{Code: 1, Err: errors.New(text.Err(e.P, session.ReachErr(e.P, err, cn.C.Target())))}
			}
			if guest.ID != "" && guest.Username == "" && guest.ID != p.ID {
				l.offerMerge(cmd.Context(), guest, p)
			}
			if err := cn.Keep(p); err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			termtext.Fprintln(e.Stdout, e.T("login.done", "username", p.Username, "name", p.Name, "server", serverName(e, cn)))
			return nil
		},
	}
	f.Register(e, c)
	c.Flags().BoolVar(&password, "password", false, e.T("flag.login.password"))
	c.Flags().StringVar(&username, "username", "", e.T("flag.login.username"))
	return c
}

// serverName names the server in messages: its address, or this
// computer's one-process mode.
func serverName(e *cli.Env, cn *session.Conn) string {
	if s := cn.Server(); s != "" {
		return s
	}
	return e.T("login.local")
}

// login is one run of the command.
type login struct {
	e        *cli.Env
	cn       *session.Conn
	username string
}

// deviceName names this terminal in the account's sign-ins.
func deviceName() string {
	host, _ := os.Hostname()
	if host == "" {
		return "tabuleiro"
	}
	return "tabuleiro on " + host
}

// withDevice signs in by the device flow, falling back to the password
// prompt when the server does not serve it.
func (l *login) withDevice(ctx context.Context) (client.Player, error) {
	e := l.e
	start, err := l.cn.C.Lobby.StartDeviceSignIn(ctx, &lobbyv1.StartDeviceSignInRequest{Device: deviceName()})
	if status.Code(err) == codes.Unimplemented {
		termtext.Fprintln(e.Stderr, e.T("login.no_device"))
		return l.withPassword(ctx)
	}
	if err != nil {
		return client.Player{}, err
	}
	termtext.Fprintln(e.Stdout, e.T("login.device", "url", loopbackName(start.GetVerificationUri()), "code", start.GetUserCode()))
	termtext.Fprintln(e.Stdout, e.T("login.device_link", "url", loopbackName(start.GetVerificationUriComplete())))
	termtext.Fprintln(e.Stdout, e.T("login.waiting", "time", start.GetExpiresAt().AsTime().Local().Format("15:04")))
	interval := time.Duration(max(start.GetIntervalSeconds(), 1)) * time.Second
	for {
		select {
		case <-ctx.Done():
			return client.Player{}, ctx.Err()
		case <-time.After(interval):
		}
		res, err := l.cn.C.Lobby.PollDeviceSignIn(ctx, &lobbyv1.PollDeviceSignInRequest{DeviceCode: start.GetDeviceCode()})
		if err == nil {
			return client.Player{ID: res.GetPlayerId(), Name: res.GetDisplayName(), Username: res.GetUsername(),
				Token: res.GetToken(), ExpiresAt: res.GetExpiresAt().AsTime(),
				RefreshToken: res.GetRefreshToken(), RefreshExpiresAt: res.GetRefreshExpiresAt().AsTime()}, nil
		}
		info, _ := reason.Of(status.Convert(err))
		switch info.GetReason() {
		case reason.AuthorizationPending:
			continue
		case reason.SlowDown:
			if d, ok := ratelimit.RetryDelay(err); ok && d > interval {
				interval = d
			} else {
				interval += 5 * time.Second
			}
			continue
		}
		if status.Code(err) == codes.Unavailable { // a blip: the code lives on
			continue
		}
		return client.Player{}, err
	}
}

// withPassword asks for the username (unless given) and the password,
// without echo when the input is a terminal, and signs in.
func (l *login) withPassword(ctx context.Context) (client.Player, error) {
	e := l.e
	name := l.username
	if name == "" {
		termtext.Fprint(e.Stdout, e.T("login.username_prompt"))
		line, err := readLine(e.Stdin)
		if err != nil {
			return client.Player{}, &cli.ExitError{Code: 1, Err: e.Errorf("login.no_input", "error", err)}
		}
		name = strings.TrimSpace(line)
	}
	termtext.Fprint(e.Stdout, e.T("login.password_prompt"))
	pw, err := readPassword(e.Stdin)
	fmt.Fprintln(e.Stdout)
	if err != nil {
		return client.Player{}, &cli.ExitError{Code: 1, Err: e.Errorf("login.no_input", "error", err)}
	}
	res, err := l.cn.C.Lobby.SignIn(ctx, &lobbyv1.SignInRequest{Username: name, Password: pw, Device: deviceName()})
	if err != nil {
		return client.Player{}, err
	}
	return client.Player{ID: res.GetPlayerId(), Name: res.GetDisplayName(), Username: res.GetUsername(),
		Token: res.GetToken(), ExpiresAt: res.GetExpiresAt().AsTime(),
		RefreshToken: res.GetRefreshToken(), RefreshExpiresAt: res.GetRefreshExpiresAt().AsTime()}, nil
}

// offerMerge asks whether to bring the finished games of guest, the guest
// this terminal kept for the server, into the account p just signed in
// (lobby.v1 MergeGuest), when it has any; yes is "y" or the language's
// yes key. A failed merge is said, and the sign-in goes on: the guest's
// games then stay with it.
func (l *login) offerMerge(ctx context.Context, guest, p client.Player) {
	e := l.e
	games, err := l.cn.C.Lobby.ListGames(p.Context(ctx), &lobbyv1.ListGamesRequest{PlayerId: guest.ID, PageSize: 100})
	if err != nil || len(games.GetGames()) == 0 {
		return // unknown here, or nothing to bring
	}
	termtext.Fprint(e.Stdout, e.T("login.merge_prompt", "count", len(games.GetGames()), "name", guest.Name, "username", p.Username))
	line, err := readLine(e.Stdin)
	fmt.Fprintln(e.Stdout)
	answer := strings.ToLower(strings.TrimSpace(line))
	if err != nil || answer == "" || (answer != "y" && answer != strings.ToLower(e.T("key.yes"))) {
		termtext.Fprintln(e.Stdout, e.T("login.merge_declined", "name", guest.Name))
		return
	}
	req := &lobbyv1.MergeGuestRequest{GuestRefreshToken: guest.RefreshToken}
	if guest.RefreshToken == "" {
		req = &lobbyv1.MergeGuestRequest{GuestToken: guest.Token}
	}
	res, err := l.cn.C.Lobby.MergeGuest(p.Context(ctx), req)
	if err != nil {
		termtext.Fprintln(e.Stderr, e.T("login.merge_failed", "error", text.Err(e.P, err)))
		return
	}
	termtext.Fprintln(e.Stdout, e.T("login.merged", "count", int(res.GetGames())))
}

// readLine reads one line, a byte at a time so that nothing after it is
// taken from the input (the password that follows).
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(one[0])
		}
		if err == io.EOF && b.Len() > 0 {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// readPassword reads a password: without echo from a terminal, else a
// line (a password piped in).
func readPassword(r io.Reader) (string, error) {
	if f, ok := r.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b, err := term.ReadPassword(int(f.Fd()))
		return string(b), err
	}
	return readLine(r)
}

// loopbackName is the device page's address u with a loopback IP host
// (127.0.0.1, ::1: the address this terminal called, when the server has
// no LOBBY_DEVICE_URL) named localhost, the origin `serve` tells players
// to open: the browser's session and passkeys are there, not at the IP.
func loopbackName(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	ip, err := netip.ParseAddr(parsed.Hostname())
	if err != nil || !ip.IsLoopback() {
		return u
	}
	port := parsed.Port()
	parsed.Host = "localhost"
	if port != "" {
		parsed.Host = net.JoinHostPort("localhost", port)
	}
	return parsed.String()
}
