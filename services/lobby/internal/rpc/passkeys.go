package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/webauthn"
	"google.golang.org/protobuf/types/known/timestamppb"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/passkeys"
	"tabuleiro.dev/services/lobby/internal/passwd"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// maxCredentialJSON bounds a WebAuthn response (bytes): a passkey's
// attestation with certificates is a few kilobytes.
const maxCredentialJSON = 64 << 10

// maxPasskeyID bounds a passkey id: a credential id is at most 1023
// bytes (WebAuthn §5.8.3), 1364 in base64url.
const maxPasskeyID = 1400

// guesses returns the wrong-password limiter for the caller's address (nil
// for an exempt loopback caller) and that address's key.
func (s *Server) guesses(ctx context.Context) (*accounts.Guesses, string) {
	c := clientaddr.FromContext(ctx, s.d.TrustedProxies)
	if s.d.ExemptLoopback && c.Loopback {
		return nil, c.Key
	}
	return s.d.Guesses, c.Key
}

// ChangePassword replaces the caller's password and ends its account's
// other sign-ins.
func (s *Server) ChangePassword(ctx context.Context, req *lobbyv1.ChangePasswordRequest) (*lobbyv1.ChangePasswordResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	if req.GetCurrentPassword() == "" {
		return nil, toStatus(lobby.Invalid("current_password", "is required"))
	}
	if len(req.GetCurrentPassword()) > 4*accounts.MaxPasswordLen {
		return nil, toStatus(accounts.ErrPasswordWrong)
	}
	pw, err := accounts.ParsePassword(req.GetNewPassword())
	if err != nil {
		return nil, toStatus(err)
	}
	acct, err := s.d.Store.AccountByPlayer(ctx, pr.PlayerID())
	if err != nil {
		return nil, toStatus(err)
	}
	guesses, addr := s.guesses(ctx)
	if guesses != nil {
		refused, err := guesses.Take(ctx, acct.Key, addr)
		if err != nil {
			return nil, toStatus(err)
		}
		if refused != nil {
			return nil, ratelimit.Exhausted(refused.Why, refused.RetryAfter)
		}
	}
	right, err := passwd.Verify(acct.PasswordHash, accounts.NormalizePassword(req.GetCurrentPassword()))
	if err != nil {
		return nil, toStatus(fmt.Errorf("account %s: %w", acct.PlayerID, err))
	}
	if !right {
		return nil, toStatus(accounts.ErrPasswordWrong)
	}
	if guesses != nil {
		guesses.Right(ctx, acct.Key, addr)
	}
	if err := s.d.Store.SetPassword(ctx, acct.PlayerID, s.d.Argon2.Hash(pw)); err != nil {
		return nil, toStatus(err)
	}
	n, err := s.d.Sessions.SignOutOthers(ctx, acct.PlayerID, pr.Family)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.ChangePasswordResponse{Ended: int32(n)}, nil
}

// passkeyUser is the account of playerID with its passkeys (all of them,
// or only the one whose id is only).
func (s *Server) passkeyUser(ctx context.Context, playerID, only string) (passkeys.User, error) {
	acct, err := s.d.Store.AccountByPlayer(ctx, playerID)
	if err != nil {
		return passkeys.User{}, err
	}
	u := passkeys.User{PlayerID: acct.PlayerID, Username: acct.Username, DisplayName: acct.DisplayName}
	var list []sqlstore.Passkey
	if only != "" {
		p, err := s.d.Store.Passkey(ctx, only)
		if err != nil {
			return passkeys.User{}, err
		}
		list = []sqlstore.Passkey{p}
	} else if list, err = s.d.Store.Passkeys(ctx, playerID); err != nil {
		return passkeys.User{}, err
	}
	for _, p := range list {
		c, err := passkeys.Decode(p.Credential)
		if err != nil {
			return passkeys.User{}, fmt.Errorf("passkey %s: %w", p.ID, err)
		}
		u.Credentials = append(u.Credentials, c)
	}
	return u, nil
}

// ceremonies returns the passkey ceremonies, ErrOff when there are none.
func (s *Server) ceremonies() (*passkeys.Ceremonies, error) {
	if s.d.Passkeys == nil {
		return nil, passkeys.ErrOff
	}
	return s.d.Passkeys, nil
}

// BeginPasskeyRegistration begins adding a passkey to the caller's account.
func (s *Server) BeginPasskeyRegistration(ctx context.Context, _ *lobbyv1.BeginPasskeyRegistrationRequest) (*lobbyv1.BeginPasskeyRegistrationResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	c, err := s.ceremonies()
	if err != nil {
		return nil, toStatus(err)
	}
	u, err := s.passkeyUser(ctx, pr.PlayerID(), "")
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, toStatus(fmt.Errorf("a guest has no account to add a passkey to (ClaimAccount first): %w", lobby.ErrNotFound))
	}
	if err != nil {
		return nil, toStatus(err)
	}
	opts, err := c.BeginRegistration(ctx, u)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.BeginPasskeyRegistrationResponse{OptionsJson: string(opts),
		ExpiresAt: timestamppb.New(s.d.Now().Add(c.ChallengeTTL()))}, nil
}

// checkCredentialJSON checks a WebAuthn response's size.
func checkCredentialJSON(js string) error {
	if js == "" {
		return lobby.Invalid("credential_json", "is required")
	}
	if len(js) > maxCredentialJSON {
		return lobby.Invalid("credential_json", "too long (%d bytes; at most %d)", len(js), maxCredentialJSON)
	}
	return nil
}

// FinishPasskeyRegistration verifies a new passkey and adds it to the
// caller's account.
func (s *Server) FinishPasskeyRegistration(ctx context.Context, req *lobbyv1.FinishPasskeyRegistrationRequest) (*lobbyv1.FinishPasskeyRegistrationResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	c, err := s.ceremonies()
	if err != nil {
		return nil, toStatus(err)
	}
	if err := checkCredentialJSON(req.GetCredentialJson()); err != nil {
		return nil, toStatus(err)
	}
	if utf8.RuneCountInString(req.GetName()) > maxDevice {
		return nil, toStatus(lobby.Invalid("name", "must be at most %d characters", maxDevice))
	}
	u, err := s.passkeyUser(ctx, pr.PlayerID(), "")
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, toStatus(fmt.Errorf("a guest has no account to add a passkey to (ClaimAccount first): %w", lobby.ErrNotFound))
	}
	if err != nil {
		return nil, toStatus(err)
	}
	cred, err := c.FinishRegistration(ctx, u, []byte(req.GetCredentialJson()))
	if err != nil {
		return nil, toStatus(err)
	}
	enc, err := passkeys.Encode(cred)
	if err != nil {
		return nil, toStatus(err)
	}
	p := sqlstore.Passkey{ID: passkeys.CredentialID(cred.ID), PlayerID: u.PlayerID, Name: device(ctx, req.GetName()), Credential: enc}
	if err := s.d.Store.AddPasskey(ctx, p); err != nil {
		return nil, toStatus(err)
	}
	p.CreatedAt = s.d.Now()
	return &lobbyv1.FinishPasskeyRegistrationResponse{Passkey: passkeyProto(p)}, nil
}

func passkeyProto(p sqlstore.Passkey) *lobbyv1.Passkey {
	out := &lobbyv1.Passkey{PasskeyId: p.ID, Name: p.Name, CreatedAt: timestamppb.New(p.CreatedAt)}
	if !p.LastUsedAt.IsZero() {
		out.LastUsedAt = timestamppb.New(p.LastUsedAt)
	}
	return out
}

// BeginPasskeySignIn begins a usernameless sign-in with a passkey.
func (s *Server) BeginPasskeySignIn(ctx context.Context, _ *lobbyv1.BeginPasskeySignInRequest) (*lobbyv1.BeginPasskeySignInResponse, error) {
	c, err := s.ceremonies()
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.limit(ctx, s.d.Limits.Password, "passkey-signin"); err != nil {
		return nil, err
	}
	opts, err := c.BeginSignIn(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.BeginPasskeySignInResponse{OptionsJson: string(opts),
		ExpiresAt: timestamppb.New(s.d.Now().Add(c.ChallengeTTL()))}, nil
}

// FinishPasskeySignIn verifies a passkey's assertion and starts a sign-in
// of its account.
func (s *Server) FinishPasskeySignIn(ctx context.Context, req *lobbyv1.FinishPasskeySignInRequest) (*lobbyv1.FinishPasskeySignInResponse, error) {
	c, err := s.ceremonies()
	if err != nil {
		return nil, toStatus(err)
	}
	if err := checkCredentialJSON(req.GetCredentialJson()); err != nil {
		return nil, toStatus(err)
	}
	if utf8.RuneCountInString(req.GetDevice()) > maxDevice {
		return nil, toStatus(lobby.Invalid("device", "must be at most %d characters", maxDevice))
	}
	if err := s.limit(ctx, s.d.Limits.Password, "passkey-signin"); err != nil {
		return nil, err
	}
	lookup := func(ctx context.Context, rawID, handle []byte) (passkeys.User, error) {
		id := passkeys.CredentialID(rawID)
		p, err := s.d.Store.Passkey(ctx, id)
		if errors.Is(err, lobby.ErrNotFound) {
			return passkeys.User{}, passkeys.ErrUnknown
		}
		if err != nil {
			return passkeys.User{}, err
		}
		if !bytes.Equal(handle, []byte(p.PlayerID)) {
			return passkeys.User{}, fmt.Errorf("the user handle is not the passkey's account's: %w", passkeys.ErrUnknown)
		}
		u, err := s.passkeyUser(ctx, p.PlayerID, id)
		if errors.Is(err, lobby.ErrNotFound) {
			return passkeys.User{}, passkeys.ErrUnknown // removed meanwhile
		}
		return u, err
	}
	u, cred, err := c.FinishSignIn(ctx, []byte(req.GetCredentialJson()), lookup)
	if err != nil {
		return nil, toStatus(err)
	}
	if err := s.usePasskey(ctx, cred); err != nil {
		return nil, toStatus(err)
	}
	family := lobby.NewID("f_")
	if err := s.d.Sessions.StartDevice(ctx, family, u.PlayerID, device(ctx, req.GetDevice()), s.d.Now(), s.d.RefreshTTL); err != nil {
		return nil, toStatus(err)
	}
	pair, err := s.issuePair(u.PlayerID, u.Username, false, family, 1)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.FinishPasskeySignInResponse{PlayerId: u.PlayerID, Token: pair.token, ExpiresAt: timestamppb.New(pair.exp),
		RefreshToken: pair.refresh, RefreshExpiresAt: timestamppb.New(pair.refreshExp),
		DisplayName: u.DisplayName, Username: u.Username}, nil
}

// usePasskey stores a credential as a sign-in updated it; a passkey
// removed meanwhile is unknown.
func (s *Server) usePasskey(ctx context.Context, cred *webauthn.Credential) error {
	enc, err := passkeys.Encode(cred)
	if err != nil {
		return err
	}
	err = s.d.Store.UsePasskey(ctx, passkeys.CredentialID(cred.ID), enc)
	if errors.Is(err, lobby.ErrNotFound) {
		return passkeys.ErrUnknown
	}
	return err
}

// ListPasskeys lists the caller's passkeys.
func (s *Server) ListPasskeys(ctx context.Context, _ *lobbyv1.ListPasskeysRequest) (*lobbyv1.ListPasskeysResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	list, err := s.d.Store.Passkeys(ctx, pr.PlayerID())
	if err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.ListPasskeysResponse{}
	for _, p := range list {
		res.Passkeys = append(res.Passkeys, passkeyProto(p))
	}
	return res, nil
}

// RemovePasskey removes a passkey of the caller's and ends the account's
// other sign-ins.
func (s *Server) RemovePasskey(ctx context.Context, req *lobbyv1.RemovePasskeyRequest) (*lobbyv1.RemovePasskeyResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	id := req.GetPasskeyId()
	if id == "" {
		return nil, toStatus(lobby.Invalid("passkey_id", "is required"))
	}
	if len(id) > maxPasskeyID || !utf8.ValidString(id) {
		return nil, toStatus(lobby.Invalid("passkey_id", "is no passkey id (base64url, at most %d characters)", maxPasskeyID))
	}
	if err := s.d.Store.RemovePasskey(ctx, pr.PlayerID(), id); err != nil {
		return nil, toStatus(err)
	}
	n, err := s.d.Sessions.SignOutOthers(ctx, pr.PlayerID(), pr.Family)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.RemovePasskeyResponse{Ended: int32(n)}, nil
}
