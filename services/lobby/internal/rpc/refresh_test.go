package rpc

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/sessions"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// players is a Store of players only (sign-in and refresh need no more).
type players struct {
	Store
	mu sync.Mutex
	m  map[string]lobby.Player
}

func (p *players) SavePlayer(_ context.Context, pl lobby.Player) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[pl.ID] = pl
	return nil
}

func (p *players) Player(_ context.Context, id string) (lobby.Player, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl, ok := p.m[id]
	if !ok {
		return lobby.Player{}, lobby.ErrNotFound
	}
	return pl, nil
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// tokenServers returns n lobby instances sharing one Redis prefix, one
// store, one token key and one clock: the instances of a deployment.
func tokenServers(t *testing.T, n int) ([]*Server, *clock, *auth.Issuer) {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	key, _ := auth.GenerateKey()
	c := &clock{t: time.Now()}
	iss, _ := auth.NewIssuer(key, auth.WithClock(c.now))
	ver, _ := auth.NewVerifier(key, auth.WithClock(c.now))
	store := &players{m: map[string]lobby.Player{}}
	var out []*Server
	for range n {
		out = append(out, New(Deps{Store: store, Issuer: iss, Verifier: ver, Sessions: sessions.New(rdb, prefix),
			TokenTTL: time.Hour, RefreshTTL: 48 * time.Hour, RefreshRetry: 10 * time.Second, Now: c.now}))
	}
	return out, c, iss
}

func wantUnauthenticated(t *testing.T, what string, err error, reason string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != codes.Unauthenticated || !strings.Contains(st.Message(), reason) {
		t.Errorf("%s: %v; want Unauthenticated with %q", what, err, reason)
	}
}

// Each refresh token is good for one exchange, on any instance; a second
// use of a spent one revokes every token of the sign-in, the newest
// included, with a reason that says so.
func TestRefreshTokenRotatesAndReuseRevokesTheFamily(t *testing.T) {
	t.Parallel()
	srv, clk, _ := tokenServers(t, 2)
	a, b := srv[0], srv[1]
	ctx := t.Context()
	in, err := a.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	if err != nil || in.GetRefreshToken() == "" || !in.GetRefreshExpiresAt().AsTime().After(in.GetExpiresAt().AsTime()) {
		t.Fatalf("sign in: %v, %v", in, err)
	}
	r1, err := b.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	if err != nil || r1.GetRefreshToken() == "" || r1.GetRefreshToken() == in.GetRefreshToken() {
		t.Fatalf("first refresh, other instance: %v, %v", r1, err)
	}
	if p, err := b.d.Verifier.Verify(r1.GetToken()); err != nil || p.Subject != in.GetPlayerId() || p.DisplayName != "Ana" {
		t.Fatalf("refreshed token %+v, %v", p, err)
	}
	clk.add(11 * time.Second) // past the retry window
	r2, err := a.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: r1.GetRefreshToken()})
	if err != nil {
		t.Fatalf("second refresh with the rotated token: %v", err)
	}
	clk.add(11 * time.Second)
	// The spent first refresh token comes back: a copy leaked.
	_, err = b.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	wantUnauthenticated(t, "reuse of a spent refresh token", err, "already used")
	// The owner's newest token is revoked with it.
	_, err = a.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: r2.GetRefreshToken()})
	wantUnauthenticated(t, "the newest token after a reuse", err, "revoked")
	// A bearer token is no refresh token, and neither field is invalid.
	_, err = a.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: r2.GetToken()})
	wantUnauthenticated(t, "a bearer token as refresh_token", err, "invalid refresh token")
	_, err = a.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{Token: r2.GetToken()})
	wantUnauthenticated(t, "a new bearer token in the legacy field", err, "refresh_token")
	_, err = a.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{})
	wantCode(t, "empty request", err, codes.InvalidArgument)
	// Another sign-in of the same process is a family of its own.
	other, _ := a.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Bo"})
	if _, err := b.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: other.GetRefreshToken()}); err != nil {
		t.Errorf("another family after a revocation: %v", err)
	}
}

// A retry of the token just exchanged, inside the window, is not reuse
// (a lost response); the pair it gets rotates on as usual.
func TestRefreshTokenRetryWithinWindow(t *testing.T) {
	t.Parallel()
	srv, clk, _ := tokenServers(t, 1)
	s := srv[0]
	ctx := t.Context()
	in, _ := s.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	if _, err := s.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()}); err != nil {
		t.Fatal(err)
	}
	clk.add(5 * time.Second)
	again, err := s.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	if err != nil {
		t.Fatalf("retry within the window: %v", err)
	}
	if _, err := s.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: again.GetRefreshToken()}); err != nil {
		t.Errorf("refresh after the retry: %v", err)
	}
}

// A refresh token's own life bounds the refresh: no grace after it.
func TestRefreshTokenExpires(t *testing.T) {
	t.Parallel()
	srv, clk, _ := tokenServers(t, 1)
	s := srv[0]
	ctx := t.Context()
	in, _ := s.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	clk.add(48*time.Hour + time.Second)
	_, err := s.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	wantUnauthenticated(t, "a refresh token past its life", err, "expired")
}

// A bearer token from before refresh tokens (no family) is exchanged once
// while valid, never after it expired.
func TestRefreshTokenLegacyBearerOnce(t *testing.T) {
	t.Parallel()
	srv, clk, iss := tokenServers(t, 2)
	ctx := t.Context()
	in, _ := srv[0].SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	old, _, _ := iss.IssuePlayer(in.GetPlayerId(), "Ana", true, time.Hour)
	r, err := srv[0].RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{Token: old})
	if err != nil || r.GetRefreshToken() == "" {
		t.Fatalf("legacy exchange: %v, %v", r, err)
	}
	_, err = srv[1].RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{Token: old})
	wantUnauthenticated(t, "legacy token twice", err, "already exchanged")
	// The same token spelled otherwise: the signature's last base64url
	// character with other spare bits decodes to the same signature.
	for _, other := range respellings(old) {
		if _, err := srv[0].d.Verifier.Verify(other); err != nil {
			t.Fatalf("respelled token %q does not verify: %v", other, err)
		}
		_, err = srv[1].RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{Token: other})
		wantUnauthenticated(t, "legacy token respelled", err, "already exchanged")
	}
	if _, err := srv[1].RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: r.GetRefreshToken()}); err != nil {
		t.Errorf("refresh token of a legacy exchange: %v", err)
	}
	expired, _, _ := iss.IssuePlayer(in.GetPlayerId(), "Ana", true, time.Hour)
	clk.add(time.Hour + time.Second)
	_, err = srv[0].RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{Token: expired})
	wantUnauthenticated(t, "expired legacy token", err, "expired")
}

// Renaming keeps the token's expiry and sign-in, so that a bearer token
// cannot be renewed forever by renaming; a sign-in revoked by a refresh
// token's reuse cannot rename at all.
func TestSetDisplayNameKeepsExpiryAndHonoursRevocation(t *testing.T) {
	t.Parallel()
	srv, clk, _ := tokenServers(t, 1)
	s := srv[0]
	ctx := t.Context()
	in, err := s.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	as := func(tok string) context.Context {
		t.Helper()
		p, err := s.d.Verifier.Verify(tok)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		return auth.NewContext(ctx, p)
	}
	first, _ := s.d.Verifier.Verify(in.GetToken())
	clk.add(30 * time.Minute)
	ren, err := s.SetDisplayName(as(in.GetToken()), &lobbyv1.SetDisplayNameRequest{DisplayName: "Bia"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.d.Verifier.Verify(ren.GetToken())
	if err != nil || p.DisplayName != "Bia" || p.Subject != first.Subject || p.Family != first.Family || p.Guest != first.Guest {
		t.Fatalf("renamed token %+v, %v; was %+v", p, err, first)
	}
	if !p.ExpiresAt.Equal(first.ExpiresAt) || !ren.GetExpiresAt().AsTime().Equal(first.ExpiresAt) {
		t.Errorf("renamed token expires %v (response %v); want the old expiry %v", p.ExpiresAt, ren.GetExpiresAt().AsTime(), first.ExpiresAt)
	}
	// Revoke the sign-in: its refresh token exchanged, then reused.
	if _, err := s.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()}); err != nil {
		t.Fatal(err)
	}
	clk.add(11 * time.Second)
	_, err = s.RefreshToken(ctx, &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	wantUnauthenticated(t, "reuse", err, "already used")
	_, err = s.SetDisplayName(as(ren.GetToken()), &lobbyv1.SetDisplayNameRequest{DisplayName: "Cai"})
	wantUnauthenticated(t, "rename after revocation", err, "revoked")
	if pl, _ := s.d.Store.Player(ctx, first.Subject); pl.DisplayName != "Bia" {
		t.Errorf("refused rename changed the name to %q", pl.DisplayName)
	}
}

// respellings returns the other spellings of a JWS token whose signature's
// last base64url character carries spare bits: the same bytes decoded.
func respellings(token string) []string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := token[len(token)-1]
	want, _ := base64.RawURLEncoding.DecodeString(token[strings.LastIndexByte(token, '.')+1:])
	var out []string
	for i := range len(alphabet) {
		c := alphabet[i]
		if c == last {
			continue
		}
		other := token[:len(token)-1] + string(c)
		got, err := base64.RawURLEncoding.DecodeString(other[strings.LastIndexByte(other, '.')+1:])
		if err == nil && string(got) == string(want) {
			out = append(out, other)
		}
	}
	return out
}
