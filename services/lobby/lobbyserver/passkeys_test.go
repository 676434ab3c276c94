package lobbyserver

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/passkeys/passkeytest"
)

const site = "https://tabuleiro.test"

// challengeOf is the challenge of a ceremony's options_json.
func challengeOf(t *testing.T, optionsJSON string) string {
	t.Helper()
	var o struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil || o.Challenge == "" {
		t.Fatalf("options %s: %v", optionsJSON, err)
	}
	if _, err := base64.RawURLEncoding.DecodeString(o.Challenge); err != nil {
		t.Fatalf("challenge %q: %v", o.Challenge, err)
	}
	return o.Challenge
}

// The passkey ceremonies over Connect (the web client's JSON), and the
// attacks on them: a replayed registration and a replayed assertion, an
// expired challenge, an assertion from another origin or for another
// relying party, a passkey of another site registered here, a passkey no
// account has, a forged signature, a removed passkey. Removing a passkey
// and changing the password end the account's other sign-ins.
func TestPasskeys(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	const addr = "198.51.100.30"
	guest, err := call[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](l, lobbyv1.LobbyService_SignInGuest_FullMethodName, addr, "",
		&lobbyv1.SignInGuestRequest{DisplayName: "Paula"})
	if err != nil {
		t.Fatal(err)
	}
	// A guest has no account to add a passkey to.
	_, err = call[lobbyv1.BeginPasskeyRegistrationRequest, lobbyv1.BeginPasskeyRegistrationResponse](l,
		lobbyv1.LobbyService_BeginPasskeyRegistration_FullMethodName, addr, guest.GetToken(), &lobbyv1.BeginPasskeyRegistrationRequest{})
	wantReason(t, "a guest's registration", err, codes.NotFound, reason.NotFound)
	const password = "paula's passphrase"
	claim, err := call[lobbyv1.ClaimAccountRequest, lobbyv1.ClaimAccountResponse](l, lobbyv1.LobbyService_ClaimAccount_FullMethodName, addr,
		guest.GetToken(), &lobbyv1.ClaimAccountRequest{Username: "paula_pk", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	tok := claim.GetToken()
	begin := func(tok string) string {
		t.Helper()
		b, err := call[lobbyv1.BeginPasskeyRegistrationRequest, lobbyv1.BeginPasskeyRegistrationResponse](l,
			lobbyv1.LobbyService_BeginPasskeyRegistration_FullMethodName, addr, tok, &lobbyv1.BeginPasskeyRegistrationRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !b.GetExpiresAt().AsTime().After(time.Now()) {
			t.Fatalf("expires_at %v", b.GetExpiresAt().AsTime())
		}
		return b.GetOptionsJson()
	}
	finish := func(tok, cred, name string) (*lobbyv1.FinishPasskeyRegistrationResponse, error) {
		return call[lobbyv1.FinishPasskeyRegistrationRequest, lobbyv1.FinishPasskeyRegistrationResponse](l,
			lobbyv1.LobbyService_FinishPasskeyRegistration_FullMethodName, addr, tok, &lobbyv1.FinishPasskeyRegistrationRequest{CredentialJson: cred, Name: name})
	}
	beginSignIn := func() string {
		t.Helper()
		b, err := call[lobbyv1.BeginPasskeySignInRequest, lobbyv1.BeginPasskeySignInResponse](l,
			lobbyv1.LobbyService_BeginPasskeySignIn_FullMethodName, addr, "", &lobbyv1.BeginPasskeySignInRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return b.GetOptionsJson()
	}
	signIn := func(cred string) (*lobbyv1.FinishPasskeySignInResponse, error) {
		return call[lobbyv1.FinishPasskeySignInRequest, lobbyv1.FinishPasskeySignInResponse](l,
			lobbyv1.LobbyService_FinishPasskeySignIn_FullMethodName, addr, "", &lobbyv1.FinishPasskeySignInRequest{CredentialJson: cred, Device: "phone"})
	}
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Registration: the options are for this site; the answer adds a
	// passkey, once.
	opts := begin(tok)
	var creation struct {
		RP struct {
			ID string `json:"id"`
		} `json:"rp"`
		AuthenticatorSelection struct {
			ResidentKey string `json:"residentKey"`
		} `json:"authenticatorSelection"`
	}
	if err := json.Unmarshal([]byte(opts), &creation); err != nil || creation.RP.ID != "tabuleiro.test" || creation.AuthenticatorSelection.ResidentKey != "required" {
		t.Fatalf("creation options %s: %v", opts, err)
	}
	laptop := &passkeytest.Authenticator{}
	reg := must(laptop.Create(opts, site))
	added, err := finish(tok, reg, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if added.GetPasskey().GetPasskeyId() != laptop.ID() || added.GetPasskey().GetName() != "laptop" {
		t.Fatalf("added %v, want %s", added, laptop.ID())
	}
	_, err = finish(tok, reg, "laptop")
	wantReason(t, "a replayed registration", err, codes.FailedPrecondition, reason.PasskeyChallengeUsed)
	// The same credential again, on a new challenge: registered already
	// (an honest authenticator declines, told by excludeCredentials).
	var excl struct {
		Exclude []struct {
			ID string `json:"id"`
		} `json:"excludeCredentials"`
	}
	opts = begin(tok)
	if err := json.Unmarshal([]byte(opts), &excl); err != nil || len(excl.Exclude) != 1 || excl.Exclude[0].ID != laptop.ID() {
		t.Fatalf("excludeCredentials of %s: %v", opts, err)
	}
	// A passkey made for another site is refused: its authenticator data
	// is for another relying-party ID; an answer from another origin too.
	evil := &passkeytest.Authenticator{RPID: "evil.test"}
	_, err = finish(tok, must(evil.Create(opts, site)), "evil")
	wantReason(t, "registering a passkey of another relying party", err, codes.PermissionDenied, reason.PasskeyWrongSite)
	_, err = finish(tok, must((&passkeytest.Authenticator{}).Create(begin(tok), "https://evil.test")), "evil")
	wantReason(t, "registering from another origin", err, codes.PermissionDenied, reason.PasskeyWrongSite)
	// Another account's challenge is not this one's.
	other, _ := call[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](l, lobbyv1.LobbyService_SignInGuest_FullMethodName, addr, "",
		&lobbyv1.SignInGuestRequest{DisplayName: "Outra"})
	otherClaim, err := call[lobbyv1.ClaimAccountRequest, lobbyv1.ClaimAccountResponse](l, lobbyv1.LobbyService_ClaimAccount_FullMethodName, addr,
		other.GetToken(), &lobbyv1.ClaimAccountRequest{Username: "outra_pk", Password: "another password"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = finish(otherClaim.GetToken(), must((&passkeytest.Authenticator{}).Create(begin(tok), site)), "stolen challenge")
	wantReason(t, "another account's challenge", err, codes.FailedPrecondition, reason.PasskeyChallengeExpired)
	_, err = finish(tok, `{"id": 1}`, "")
	wantReason(t, "a malformed answer", err, codes.InvalidArgument, reason.InvalidRequest)

	// Sign-in, usernameless: the account, a session of its own.
	opts = beginSignIn()
	var request struct {
		RPID  string `json:"rpId"`
		Allow []any  `json:"allowCredentials"`
	}
	if err := json.Unmarshal([]byte(opts), &request); err != nil || request.RPID != "tabuleiro.test" || len(request.Allow) != 0 {
		t.Fatalf("request options %s: %v", opts, err)
	}
	assertion := must(laptop.Get(opts, site))
	in, err := signIn(assertion)
	if err != nil {
		t.Fatal(err)
	}
	if in.GetPlayerId() != guest.GetPlayerId() || in.GetUsername() != "paula_pk" || in.GetDisplayName() != "Paula" || in.GetRefreshToken() == "" {
		t.Fatalf("passkey sign-in = %v; want player %s", in, guest.GetPlayerId())
	}
	list, err := l.grpc.ListPasskeys(grpcFrom(t.Context(), addr, in.GetToken()), &lobbyv1.ListPasskeysRequest{})
	if err != nil || len(list.GetPasskeys()) != 1 || list.GetPasskeys()[0].GetLastUsedAt() == nil {
		t.Fatalf("passkeys after a sign-in: %v, %v; want one, used", list, err)
	}
	// Replayed: the challenge was answered.
	_, err = signIn(assertion)
	wantReason(t, "a replayed assertion", err, codes.FailedPrecondition, reason.PasskeyChallengeUsed)
	// Expired: the challenge's key lives for the challenge TTL (5
	// minutes), then Redis drops it, as this test does now.
	opts = beginSignIn()
	key := l.prefix + "passkey-challenge:" + challengeOf(t, opts)
	if ttl, err := l.rdb.PTTL(t.Context(), key).Result(); err != nil || ttl <= 4*time.Minute || ttl > 5*time.Minute {
		t.Fatalf("challenge key %s: TTL %v, %v; want 5 minutes", key, ttl, err)
	}
	if err := l.rdb.Del(t.Context(), key).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = signIn(must(laptop.Get(opts, site)))
	wantReason(t, "an expired challenge", err, codes.FailedPrecondition, reason.PasskeyChallengeExpired)
	// Another origin (a phishing page relaying our challenge).
	_, err = signIn(must(laptop.Get(beginSignIn(), "https://tabuleiro.test.evil.example")))
	wantReason(t, "an assertion from another origin", err, codes.PermissionDenied, reason.PasskeyWrongSite)
	// A passkey registered for another site, asserting here.
	elsewhere := &passkeytest.Authenticator{}
	_ = must(elsewhere.Create(`{"challenge":"AAAA","rp":{"id":"evil.test"},"user":{"id":"`+base64.RawURLEncoding.EncodeToString([]byte(guest.GetPlayerId()))+`"}}`, "https://evil.test"))
	_, err = signIn(must(elsewhere.Get(beginSignIn(), site)))
	wantReason(t, "a passkey of another relying party", err, codes.PermissionDenied, reason.PasskeyWrongSite)
	// A passkey of this site that no account has.
	stranger := &passkeytest.Authenticator{}
	_ = must(stranger.Create(`{"challenge":"AAAA","rp":{"id":"tabuleiro.test"},"user":{"id":"`+base64.RawURLEncoding.EncodeToString([]byte(guest.GetPlayerId()))+`"}}`, site))
	_, err = signIn(must(stranger.Get(beginSignIn(), site)))
	wantReason(t, "an unknown passkey", err, codes.Unauthenticated, reason.PasskeyUnknown)
	// A forged signature.
	_, err = signIn(passkeytest.Tamper(must(laptop.Get(beginSignIn(), site))))
	wantReason(t, "a forged signature", err, codes.Unauthenticated, reason.PasskeyRefused)

	// Removing the passkey: it signs in no more, and the other sign-ins
	// (the passkey's) end; the remover's goes on.
	_, err = l.grpc.RemovePasskey(grpcFrom(t.Context(), addr, tok), &lobbyv1.RemovePasskeyRequest{PasskeyId: "no-such-passkey"})
	wantReason(t, "removing an unknown passkey", err, codes.NotFound, reason.NotFound)
	_, err = l.grpc.RemovePasskey(grpcFrom(t.Context(), addr, otherClaim.GetToken()), &lobbyv1.RemovePasskeyRequest{PasskeyId: laptop.ID()})
	wantReason(t, "removing another's passkey", err, codes.NotFound, reason.NotFound)
	removed, err := l.grpc.RemovePasskey(grpcFrom(t.Context(), addr, tok), &lobbyv1.RemovePasskeyRequest{PasskeyId: laptop.ID()})
	if err != nil || removed.GetEnded() != 1 {
		t.Fatalf("remove: %v, %v; want 1 other sign-in ended", removed, err)
	}
	_, err = l.grpc.ListSessions(grpcFrom(t.Context(), addr, in.GetToken()), &lobbyv1.ListSessionsRequest{})
	wantReason(t, "the passkey's sign-in after its removal", err, codes.Unauthenticated, reason.SignedOut)
	_, err = signIn(must(laptop.Get(beginSignIn(), site)))
	wantReason(t, "a removed passkey", err, codes.Unauthenticated, reason.PasskeyUnknown)
	if list, err := l.grpc.ListPasskeys(grpcFrom(t.Context(), addr, tok), &lobbyv1.ListPasskeysRequest{}); err != nil || len(list.GetPasskeys()) != 0 {
		t.Fatalf("passkeys after the removal: %v, %v", list, err)
	}

	// Changing the password ends the other sign-ins too.
	phone, err := l.grpc.SignIn(grpcFrom(t.Context(), "203.0.113.31", ""), &lobbyv1.SignInRequest{Username: "paula_pk", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.grpc.ChangePassword(grpcFrom(t.Context(), addr, tok), &lobbyv1.ChangePasswordRequest{CurrentPassword: "not the password", NewPassword: "a new passphrase"})
	wantReason(t, "a wrong current password", err, codes.PermissionDenied, reason.PasswordWrong)
	_, err = l.grpc.ChangePassword(grpcFrom(t.Context(), addr, tok), &lobbyv1.ChangePasswordRequest{CurrentPassword: password, NewPassword: "short"})
	wantReason(t, "a short new password", err, codes.InvalidArgument, reason.InvalidRequest)
	changed, err := l.grpc.ChangePassword(grpcFrom(t.Context(), addr, tok), &lobbyv1.ChangePasswordRequest{CurrentPassword: password, NewPassword: "a new passphrase"})
	if err != nil || changed.GetEnded() != 1 {
		t.Fatalf("change password: %v, %v; want 1 other sign-in ended", changed, err)
	}
	_, err = l.grpc.ListSessions(grpcFrom(t.Context(), addr, phone.GetToken()), &lobbyv1.ListSessionsRequest{})
	wantReason(t, "the phone after the password changed", err, codes.Unauthenticated, reason.SignedOut)
	if _, err := l.grpc.ListSessions(grpcFrom(t.Context(), addr, tok), &lobbyv1.ListSessionsRequest{}); err != nil {
		t.Fatalf("the changer's own sign-in: %v", err)
	}
	_, err = l.grpc.SignIn(grpcFrom(t.Context(), "203.0.113.31", ""), &lobbyv1.SignInRequest{Username: "paula_pk", Password: password})
	wantReason(t, "the old password", err, codes.Unauthenticated, reason.CredentialsWrong)
	if _, err := l.grpc.SignIn(grpcFrom(t.Context(), "203.0.113.31", ""), &lobbyv1.SignInRequest{Username: "paula_pk", Password: "a new passphrase"}); err != nil {
		t.Fatalf("the new password: %v", err)
	}
}

// A lobby with no relying party says passkeys are off.
func TestPasskeysOff(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t, PasskeyConfig{})
	_, err := call[lobbyv1.BeginPasskeySignInRequest, lobbyv1.BeginPasskeySignInResponse](l,
		lobbyv1.LobbyService_BeginPasskeySignIn_FullMethodName, "198.51.100.40", "", &lobbyv1.BeginPasskeySignInRequest{})
	wantReason(t, "passkeys off", err, codes.FailedPrecondition, reason.PasskeysUnavailable)
}
