package auth_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"tabuleiro.dev/pkg/platform/auth"
)

func mustKey(t *testing.T) []byte {
	t.Helper()
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func TestIssueVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := auth.WithClock(func() time.Time { return now })
	iss, err := auth.NewIssuer(key, clock)
	if err != nil {
		t.Fatal(err)
	}
	ver, err := auth.NewVerifier(key, clock)
	if err != nil {
		t.Fatal(err)
	}
	player, exp, err := iss.IssuePlayer("p-42", "Ana Lúcia", true, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	service, _, err := iss.IssueService("lobby", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		token string
		want  auth.Principal
	}{
		{name: "player", token: player, want: auth.Principal{Kind: auth.KindPlayer, Subject: "p-42", DisplayName: "Ana Lúcia", Guest: true, ExpiresAt: exp}},
		{name: "service", token: service, want: auth.Principal{Kind: auth.KindService, Subject: "lobby", ExpiresAt: now.Add(time.Hour)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ver.Verify(tt.token)
			if err != nil {
				t.Fatal(err)
			}
			if !got.ExpiresAt.Equal(tt.want.ExpiresAt) {
				t.Errorf("ExpiresAt = %v, want %v", got.ExpiresAt, tt.want.ExpiresAt)
			}
			got.ExpiresAt = tt.want.ExpiresAt
			if got != tt.want {
				t.Errorf("Verify = %+v, want %+v", got, tt.want)
			}
		})
	}
	if p, _ := ver.Verify(player); p.PlayerID() != "p-42" || p.IsService() {
		t.Errorf("player principal: PlayerID %q IsService %v", p.PlayerID(), p.IsService())
	}
	if p, _ := ver.Verify(service); p.PlayerID() != "" || !p.IsService() {
		t.Errorf("service principal: PlayerID %q IsService %v", p.PlayerID(), p.IsService())
	}
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	iss, _ := auth.NewIssuer(key, auth.WithClock(func() time.Time { return now }))
	forger, _ := auth.NewIssuer(mustKey(t), auth.WithClock(func() time.Time { return now }))
	valid, _, _ := iss.IssuePlayer("p-1", "Ana", false, time.Hour)
	forged, _, _ := forger.IssuePlayer("p-1", "Ana", false, time.Hour)
	unsigned, err := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{
		"iss": "tabuleiro", "sub": "p-1", "knd": "player", "exp": now.Add(time.Hour).Unix(),
	}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss": "elsewhere", "sub": "p-1", "knd": "player", "exp": now.Add(time.Hour).Unix(),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	noKind, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss": "tabuleiro", "sub": "p-1", "exp": now.Add(time.Hour).Unix(),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	noExpiry, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss": "tabuleiro", "sub": "p-1", "knd": "player",
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		at    time.Time
		token string
		want  error
	}{
		{name: "valid just before expiry", at: now.Add(59 * time.Minute), token: valid, want: nil},
		{name: "expired", at: now.Add(61 * time.Minute), token: valid, want: auth.ErrExpiredToken},
		{name: "forged", at: now, token: forged, want: auth.ErrInvalidToken},
		{name: "alg none", at: now, token: unsigned, want: auth.ErrInvalidToken},
		{name: "other issuer", at: now, token: foreign, want: auth.ErrInvalidToken},
		{name: "no kind", at: now, token: noKind, want: auth.ErrInvalidToken},
		{name: "no expiry", at: now, token: noExpiry, want: auth.ErrInvalidToken},
		{name: "empty", at: now, token: "", want: auth.ErrInvalidToken},
		{name: "garbage", at: now, token: "a.b.c", want: auth.ErrInvalidToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ver, _ := auth.NewVerifier(key, auth.WithClock(func() time.Time { return tt.at }))
			_, err := ver.Verify(tt.token)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

// A refresh token is good only for VerifyRefresh, and only in its own
// life; a bearer token is no refresh token.
func TestRefreshTokens(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	iss, _ := auth.NewIssuer(key, auth.WithClock(func() time.Time { return now }))
	rt, exp, err := iss.IssueRefresh("p-1", "f-1", 3, 30*24*time.Hour)
	if err != nil || !exp.Equal(now.Add(30*24*time.Hour)) {
		t.Fatalf("IssueRefresh = %v, %v", exp, err)
	}
	access, _, _ := iss.IssuePlayerOf("f-1", "p-1", "Ana", true, time.Hour)
	ver, _ := auth.NewVerifier(key, auth.WithClock(func() time.Time { return now.Add(time.Minute) }))
	r, err := ver.VerifyRefresh(rt)
	if err != nil || r.PlayerID != "p-1" || r.Family != "f-1" || r.Generation != 3 {
		t.Fatalf("VerifyRefresh = %+v, %v", r, err)
	}
	if _, err := ver.Verify(rt); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a refresh token as a bearer token: %v, want ErrInvalidToken", err)
	}
	if _, err := ver.VerifyRefresh(access); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a bearer token as a refresh token: %v, want ErrInvalidToken", err)
	}
	if p, err := ver.Verify(access); err != nil || p.Family != "f-1" {
		t.Errorf("Verify(access) = %+v, %v; want family f-1", p, err)
	}
	late, _ := auth.NewVerifier(key, auth.WithClock(func() time.Time { return now.Add(30*24*time.Hour + time.Second) }))
	if _, err := late.VerifyRefresh(rt); !errors.Is(err, auth.ErrExpiredToken) {
		t.Errorf("a refresh token past its life: %v, want ErrExpiredToken", err)
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	got, err := auth.ParseKey(auth.EncodeKey(key))
	if err != nil || string(got) != string(key) {
		t.Errorf("ParseKey(EncodeKey(k)) = %x, %v; want %x", got, err, key)
	}
	tests := []struct {
		name string
		give string
	}{
		{name: "not base64", give: "!!!"},
		{name: "too short", give: auth.EncodeKey(key[:16])},
		{name: "empty", give: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := auth.ParseKey(tt.give); err == nil {
				t.Errorf("ParseKey(%q) accepted", tt.give)
			}
		})
	}
	if _, err := auth.NewIssuer(key[:31]); err == nil {
		t.Error("NewIssuer accepted a 31-byte key")
	}
	if _, err := auth.NewVerifier(nil); err == nil {
		t.Error("NewVerifier accepted no key")
	}
}

func TestServiceCredentialsRenew(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	iss, _ := auth.NewIssuer(key, auth.WithClock(func() time.Time { return now }))
	creds := auth.NewServiceCredentials(iss, "match", time.Hour)
	first, err := creds.GetRequestMetadata(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first["authorization"], "Bearer ") {
		t.Fatalf("metadata = %v, want a bearer token", first)
	}
	again, _ := creds.Token()
	if "Bearer "+again != first["authorization"] {
		t.Error("token re-minted before half of its lifetime")
	}
	now = now.Add(31 * time.Minute)
	renewed, _ := creds.Token()
	if "Bearer "+renewed == first["authorization"] {
		t.Error("token not renewed after half of its lifetime")
	}
	ver, _ := auth.NewVerifier(key, auth.WithClock(func() time.Time { return now }))
	if p, err := ver.Verify(renewed); err != nil || !p.IsService() || p.Subject != "match" {
		t.Errorf("renewed token: %+v, %v", p, err)
	}
}

// A claimed guest's token is the same sign-in, player and expiry, no
// longer a guest's.
func TestClaimed(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := auth.WithClock(func() time.Time { return now })
	iss, _ := auth.NewIssuer(key, clock)
	ver, _ := auth.NewVerifier(key, clock)
	tok, exp, _ := iss.IssuePlayerOf("f-1", "p-1", "Ana", true, time.Hour)
	p, _ := ver.Verify(tok)
	now = now.Add(10 * time.Minute)
	claimed, cexp, err := iss.Claimed(p)
	if err != nil || !cexp.Equal(exp) {
		t.Fatalf("Claimed = %v, %v; want expiry %v", cexp, err, exp)
	}
	c, err := ver.Verify(claimed)
	if err != nil || c.Guest || c.Subject != "p-1" || c.Family != "f-1" || c.DisplayName != "Ana" {
		t.Fatalf("claimed token %+v, %v", c, err)
	}
	now = exp.Add(time.Second)
	if _, _, err := iss.Claimed(p); !errors.Is(err, auth.ErrExpiredToken) {
		t.Errorf("claiming with an expired token: %v", err)
	}
}
