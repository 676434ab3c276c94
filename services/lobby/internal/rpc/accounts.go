package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/timestamppb"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/passwd"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// maxDevice is the longest device name a sign-in keeps (runes).
const maxDevice = 64

// device names a sign-in: the name the client gave, else its user agent
// (a browser's as the web client names it: "Chrome (Linux)"), cut to
// maxDevice characters.
func device(ctx context.Context, given string) string {
	d := strings.TrimSpace(given)
	if d == "" {
		md, _ := metadata.FromIncomingContext(ctx)
		if ua := md.Get("user-agent"); len(ua) > 0 {
			d = browserName(strings.TrimSpace(ua[0]))
		}
	}
	d = strings.ToValidUTF8(d, "")
	if utf8.RuneCountInString(d) > maxDevice {
		d = string([]rune(d)[:maxDevice])
	}
	return d
}

// browserName names a browser's user agent by its browser and system, as
// the web client's browserName (web/src/ui/account.ts) does; any other
// agent (a gRPC client's) is kept as it is.
func browserName(ua string) string {
	if !strings.HasPrefix(ua, "Mozilla/") {
		return ua
	}
	pick := func(names ...string) string {
		for i := 0; i < len(names); i += 2 {
			if strings.Contains(ua, names[i]) {
				return names[i+1]
			}
		}
		return ""
	}
	b := pick("Firefox/", "Firefox", "Edg/", "Edge", "Chrome/", "Chrome", "Safari/", "Safari")
	if b == "" {
		b = "Browser"
	}
	if os := pick("Android", "Android", "iPhone", "iOS", "iPad", "iOS", "Windows", "Windows", "Mac OS", "macOS", "Linux", "Linux"); os != "" {
		return b + " (" + os + ")"
	}
	return b
}

// player returns the calling player's principal: a player (not a
// service) whose sign-in is live.
func (s *Server) player(ctx context.Context) (auth.Principal, error) {
	pr, ok := auth.FromContext(ctx)
	if ok && pr.IsService() {
		return pr, fmt.Errorf("a service credential is no player: %w", lobby.ErrForbidden)
	}
	if !ok || pr.PlayerID() == "" {
		return pr, lobby.ErrUnauthenticated
	}
	return pr, s.live(ctx, pr.Family)
}

// ClaimAccount makes the caller's guest an account.
func (s *Server) ClaimAccount(ctx context.Context, req *lobbyv1.ClaimAccountRequest) (*lobbyv1.ClaimAccountResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	u, err := accounts.ParseUsername(req.GetUsername())
	if err != nil {
		return nil, toStatus(err)
	}
	pw, err := accounts.ParsePassword(req.GetPassword())
	if err != nil {
		return nil, toStatus(err)
	}
	err = s.d.Store.CreateAccount(ctx, sqlstore.Account{PlayerID: pr.PlayerID(), Username: u.Name, Key: u.Key,
		Skeleton: u.Skeleton, ShownSkeleton: u.Shown, PasswordHash: s.d.Argon2.Hash(pw)})
	if err != nil {
		return nil, toStatus(err)
	}
	pr.DisplayName = u.Name // an account is shown by its username
	tok, exp, err := s.d.Issuer.Claimed(pr)
	if errors.Is(err, auth.ErrExpiredToken) {
		return nil, toStatus(lobby.ErrUnauthenticated)
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.ClaimAccountResponse{Username: u.Name, Token: tok, ExpiresAt: timestamppb.New(exp)}, nil
}

// dummyHash is checked against a password given for an unknown username,
// so that the answer takes as long as for a known one.
var dummyHash struct {
	once sync.Once
	hash string
}

// SignIn checks an account's password and starts a sign-in.
func (s *Server) SignIn(ctx context.Context, req *lobbyv1.SignInRequest) (*lobbyv1.SignInResponse, error) {
	if req.GetUsername() == "" {
		return nil, toStatus(lobby.Invalid("username", "is required"))
	}
	if req.GetPassword() == "" {
		return nil, toStatus(lobby.Invalid("password", "is required"))
	}
	if len(req.GetUsername()) > 4*lobby.MaxUsernameLen || len(req.GetPassword()) > 4*accounts.MaxPasswordLen {
		return nil, toStatus(lobby.ErrBadCredentials) // no account has so long a name or password
	}
	if utf8.RuneCountInString(req.GetDevice()) > maxDevice {
		return nil, toStatus(lobby.Invalid("device", "must be at most %d characters", maxDevice))
	}
	if err := s.limit(ctx, s.d.Limits.Password, "password-signin"); err != nil {
		return nil, err
	}
	key, ok := accounts.Key(req.GetUsername())
	if !ok {
		key = "\x00" + req.GetUsername() // no account's, still counted
	}
	c := clientaddr.FromContext(ctx, s.d.TrustedProxies)
	guesses := s.d.Guesses
	if s.d.ExemptLoopback && c.Loopback {
		guesses = nil
	}
	if guesses != nil {
		refused, err := guesses.Take(ctx, key, c.Key)
		if err != nil {
			return nil, toStatus(err)
		}
		if refused != nil {
			return nil, ratelimit.Exhausted(refused.Why, refused.RetryAfter)
		}
	}
	pw := accounts.NormalizePassword(req.GetPassword())
	acct, err := sqlstore.Account{}, lobby.ErrNotFound
	if ok { // a username that is no PRECIS one names no account
		acct, err = s.d.Store.AccountByKey(ctx, key)
	}
	if errors.Is(err, lobby.ErrNotFound) {
		dummyHash.once.Do(func() { dummyHash.hash = s.d.Argon2.Hash("not a password") })
		_, _ = passwd.Verify(dummyHash.hash, pw)
		return nil, toStatus(lobby.ErrBadCredentials)
	}
	if err != nil {
		return nil, toStatus(err)
	}
	right, err := passwd.Verify(acct.PasswordHash, pw)
	if err != nil {
		return nil, toStatus(fmt.Errorf("account %s: %w", acct.PlayerID, err))
	}
	if !right {
		return nil, toStatus(lobby.ErrBadCredentials)
	}
	if guesses != nil {
		guesses.Right(ctx, key, c.Key)
	}
	family := lobby.NewID("f_")
	if err := s.d.Sessions.StartDevice(ctx, family, acct.PlayerID, device(ctx, req.GetDevice()), s.d.Now(), s.d.RefreshTTL); err != nil {
		return nil, toStatus(err)
	}
	pair, err := s.issuePair(acct.PlayerID, acct.Username, false, family, 1)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.SignInResponse{PlayerId: acct.PlayerID, Token: pair.token, ExpiresAt: timestamppb.New(pair.exp),
		RefreshToken: pair.refresh, RefreshExpiresAt: timestamppb.New(pair.refreshExp),
		DisplayName: acct.DisplayName, Username: acct.Username}, nil
}

// ListSessions lists the caller's live sign-ins.
func (s *Server) ListSessions(ctx context.Context, _ *lobbyv1.ListSessionsRequest) (*lobbyv1.ListSessionsResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	list, err := s.d.Sessions.List(ctx, pr.PlayerID())
	if err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.ListSessionsResponse{}
	for _, ss := range list {
		res.Sessions = append(res.Sessions, &lobbyv1.Session{SessionId: ss.Family, Device: ss.Device,
			SignedInAt: timestamppb.New(ss.SignedIn), LastSeenAt: timestamppb.New(ss.LastSeen), Current: ss.Family == pr.Family})
	}
	return res, nil
}

// SignOut ends one sign-in of the caller's, or all of them.
func (s *Server) SignOut(ctx context.Context, req *lobbyv1.SignOutRequest) (*lobbyv1.SignOutResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	if req.GetEverywhere() {
		if req.GetSessionId() != "" {
			return nil, toStatus(lobby.Invalid("session_id", "must be empty with everywhere"))
		}
		n, err := s.d.Sessions.SignOutAll(ctx, pr.PlayerID())
		if err != nil {
			return nil, toStatus(err)
		}
		return &lobbyv1.SignOutResponse{Ended: int32(n)}, nil
	}
	fam := req.GetSessionId()
	if fam == "" {
		fam = pr.Family
	}
	if fam == "" {
		return nil, toStatus(lobby.Invalid("session_id", "is required: this token is from before sign-ins had sessions"))
	}
	if err := checkID("session_id", fam); err != nil {
		return nil, toStatus(err)
	}
	ok, err := s.d.Sessions.SignOut(ctx, pr.PlayerID(), fam)
	if err != nil {
		return nil, toStatus(err)
	}
	if !ok {
		return nil, toStatus(fmt.Errorf("session %s: %w", lobby.Clip(fam), lobby.ErrNotFound))
	}
	return &lobbyv1.SignOutResponse{Ended: 1}, nil
}
