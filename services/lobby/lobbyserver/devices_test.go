package lobbyserver

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
)

// claimed signs in a guest called name from addr and claims the account
// username with password; it returns the account's token.
func claimed(t *testing.T, l *accountsLobby, addr, name, username, password string) (*lobbyv1.SignInGuestResponse, string) {
	t.Helper()
	g, err := l.grpc.SignInGuest(grpcFrom(t.Context(), addr, ""), &lobbyv1.SignInGuestRequest{DisplayName: name})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.grpc.ClaimAccount(grpcFrom(t.Context(), addr, g.GetToken()), &lobbyv1.ClaimAccountRequest{Username: username, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	return g, c.GetToken()
}

// A terminal signs in by the device flow of RFC 8628: it starts, shows
// the user code, and polls (pending) while the player, signed in to the
// account in a browser (Connect, as the web client calls), approves the
// code typed in lower case with spaces; the next poll is a sign-in of the
// account, listed among its sessions, and the device code is spent. A
// guest may not approve, an unknown code is refused, a refused sign-in is
// access_denied, and polling too fast is slow_down with a longer interval.
func TestDeviceSignInApprovedFromTheBrowser(t *testing.T) {
	t.Parallel()
	l := newConfiguredLobby(t, func(c *Config) { c.DevicePoll = time.Millisecond; c.DeviceURL = "https://play.example/#/device" })
	ctx := t.Context()
	const web, terminal = "198.51.100.10", "203.0.113.20"
	guest, tok := claimed(t, l, web, "Ana", "ana_device", "a long password")

	start, err := l.grpc.StartDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.StartDeviceSignInRequest{Device: "tabuleiro on laptop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(start.GetUserCode()) != 9 || start.GetUserCode()[4] != '-' || start.GetDeviceCode() == "" ||
		start.GetVerificationUri() != "https://play.example/#/device" ||
		start.GetVerificationUriComplete() != "https://play.example/#/device?code="+start.GetUserCode() ||
		start.GetIntervalSeconds() != 1 || time.Until(start.GetExpiresAt().AsTime()) < 9*time.Minute {
		t.Fatalf("start = %v", start)
	}
	time.Sleep(2 * time.Millisecond) // the interval (1 ms here)
	_, err = l.grpc.PollDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: start.GetDeviceCode()})
	wantReason(t, "a poll before approval", err, codes.FailedPrecondition, reason.AuthorizationPending)

	// A guest may not approve; an unknown or malformed code is refused.
	other, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Bia"})
	_, err = call[lobbyv1.ApproveDeviceSignInRequest, lobbyv1.ApproveDeviceSignInResponse](l, lobbyv1.LobbyService_ApproveDeviceSignIn_FullMethodName,
		web, other.GetToken(), &lobbyv1.ApproveDeviceSignInRequest{UserCode: start.GetUserCode()})
	wantReason(t, "a guest's approval", err, codes.FailedPrecondition, reason.AccountNeeded)
	for _, code := range []string{"BCDF-GHJK", "AAAA-AAAA", "BCD"} {
		_, err = call[lobbyv1.ApproveDeviceSignInRequest, lobbyv1.ApproveDeviceSignInResponse](l, lobbyv1.LobbyService_ApproveDeviceSignIn_FullMethodName,
			web, tok, &lobbyv1.ApproveDeviceSignInRequest{UserCode: code})
		wantReason(t, "approving "+code, err, codes.NotFound, reason.UserCodeUnknown)
	}
	_, err = call[lobbyv1.ApproveDeviceSignInRequest, lobbyv1.ApproveDeviceSignInResponse](l, lobbyv1.LobbyService_ApproveDeviceSignIn_FullMethodName,
		web, tok, &lobbyv1.ApproveDeviceSignInRequest{})
	wantReason(t, "an empty code", err, codes.InvalidArgument, reason.InvalidRequest)

	typed := strings.ToLower(start.GetUserCode()[:4] + " " + start.GetUserCode()[5:])
	ok, err := call[lobbyv1.ApproveDeviceSignInRequest, lobbyv1.ApproveDeviceSignInResponse](l, lobbyv1.LobbyService_ApproveDeviceSignIn_FullMethodName,
		web, tok, &lobbyv1.ApproveDeviceSignInRequest{UserCode: typed})
	if err != nil || ok.GetDevice() != "tabuleiro on laptop" {
		t.Fatalf("approve: %v, %v", ok, err)
	}
	// A code is answered once.
	_, err = call[lobbyv1.ApproveDeviceSignInRequest, lobbyv1.ApproveDeviceSignInResponse](l, lobbyv1.LobbyService_ApproveDeviceSignIn_FullMethodName,
		web, tok, &lobbyv1.ApproveDeviceSignInRequest{UserCode: typed})
	wantReason(t, "approving twice", err, codes.NotFound, reason.UserCodeUnknown)
	time.Sleep(2 * time.Millisecond)
	in, err := l.grpc.PollDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: start.GetDeviceCode()})
	if err != nil || in.GetPlayerId() != guest.GetPlayerId() || in.GetUsername() != "ana_device" || in.GetDisplayName() != "Ana" ||
		in.GetToken() == "" || in.GetRefreshToken() == "" {
		t.Fatalf("poll after approval: %v, %v", in, err)
	}
	list, err := l.grpc.ListSessions(grpcFrom(ctx, terminal, in.GetToken()), &lobbyv1.ListSessionsRequest{})
	if err != nil || len(list.GetSessions()) != 2 || list.GetSessions()[0].GetDevice() != "tabuleiro on laptop" || !list.GetSessions()[0].GetCurrent() {
		t.Fatalf("sessions after the device sign-in: %v, %v", list, err)
	}
	if _, err := l.grpc.RefreshToken(grpcFrom(ctx, terminal, ""), &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()}); err != nil {
		t.Fatalf("the device's refresh: %v", err)
	}
	time.Sleep(2 * time.Millisecond)
	_, err = l.grpc.PollDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: start.GetDeviceCode()})
	wantReason(t, "a spent device code", err, codes.FailedPrecondition, reason.ExpiredToken)
	_, err = l.grpc.PollDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: "dc_forged"})
	wantReason(t, "a forged device code", err, codes.FailedPrecondition, reason.ExpiredToken)

	// Refused in the browser: access_denied, then the code is spent.
	deny, _ := l.grpc.StartDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.StartDeviceSignInRequest{})
	if _, err := l.grpc.ApproveDeviceSignIn(grpcFrom(ctx, web, tok), &lobbyv1.ApproveDeviceSignInRequest{UserCode: deny.GetUserCode(), Deny: true}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	_, err = l.grpc.PollDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: deny.GetDeviceCode()})
	wantReason(t, "a refused sign-in", err, codes.PermissionDenied, reason.AccessDenied)
	time.Sleep(2 * time.Millisecond)
	_, err = l.grpc.PollDeviceSignIn(grpcFrom(ctx, terminal, ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: deny.GetDeviceCode()})
	wantReason(t, "a refused sign-in polled again", err, codes.FailedPrecondition, reason.ExpiredToken)
}

// A device that polls sooner than its interval gets slow_down with an
// interval 5 s longer (retry_seconds and RetryInfo), and the approval page
// defaults to the address the device called.
func TestDeviceSignInSlowDown(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	start, err := l.grpc.StartDeviceSignIn(grpcFrom(t.Context(), "203.0.113.20", ""), &lobbyv1.StartDeviceSignInRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if start.GetIntervalSeconds() != 5 || start.GetVerificationUri() != "http://lobby/#/device" {
		t.Fatalf("start = %v; want a 5 s interval and the page at the called address", start)
	}
	for i, want := range []string{"10", "15"} {
		_, err = l.grpc.PollDeviceSignIn(grpcFrom(t.Context(), "203.0.113.20", ""), &lobbyv1.PollDeviceSignInRequest{DeviceCode: start.GetDeviceCode()})
		wantReason(t, "an early poll", err, codes.ResourceExhausted, reason.SlowDown)
		info, _ := reason.Of(status.Convert(err))
		d, ok := ratelimit.RetryDelay(err)
		if info.GetMetadata()["retry_seconds"] != want || !ok || d.String() != want+"s" {
			t.Fatalf("early poll %d: %v (retry %v %v); want an interval of %s s", i+1, info.GetMetadata(), d, ok, want)
		}
	}
}
