package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/reason"
)

// signIns answers each family from a map (nil: live).
type signIns map[string]error

func (s signIns) Check(_ context.Context, family string) error { return s[family] }

// A player token of a sign-in that ended is refused with the reason, a
// service credential and a token of no sign-in are not asked about, and a
// sign-in that cannot be checked is UNAVAILABLE.
func TestInterceptorRefusesEndedSignIns(t *testing.T) {
	key := mustKey(t)
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	i := auth.NewInterceptor(ver, auth.Policy{SignIns: signIns{
		"out": auth.ErrSignedOut, "revoked": auth.ErrSignInRevoked, "broken": errors.New("redis: connection refused"),
	}})
	token := func(family string) string {
		var tok string
		var err error
		if family == "" {
			tok, _, err = iss.IssuePlayer("p1", "Ana", true, time.Hour)
		} else {
			tok, _, err = iss.IssuePlayerOf(family, "p1", "Ana", true, time.Hour)
		}
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	service, _, err := iss.IssueService("lobby", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, token string
		code        codes.Code
		reason      string
	}{
		{"live", token("live"), codes.OK, ""},
		{"signed out", token("out"), codes.Unauthenticated, reason.SignedOut},
		{"revoked", token("revoked"), codes.Unauthenticated, reason.SessionRevoked},
		{"unknown to the store", token("broken"), codes.Unavailable, reason.Unavailable},
		{"no sign-in", token(""), codes.OK, ""},
		{"service", service, codes.OK, ""},
	} {
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+tc.token))
		_, err := i.Authenticate(ctx, "/tabuleiro.match.v1.MatchService/GetMatch")
		st := status.Convert(err)
		info, _ := reason.Of(st)
		if st.Code() != tc.code || (tc.reason != "" && info.GetReason() != tc.reason) {
			t.Errorf("%s: %v (reason %q), want %v %s", tc.name, err, info.GetReason(), tc.code, tc.reason)
		}
	}
}
