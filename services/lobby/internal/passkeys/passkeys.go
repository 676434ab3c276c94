// Package passkeys runs the WebAuthn ceremonies of accounts' passkeys with
// github.com/go-webauthn/webauthn: registering one (begin: options for
// navigator.credentials.create; finish: the verified credential) and
// signing in with one, usernameless (begin: options for
// navigator.credentials.get with no allowed list, so the authenticator
// offers its discoverable credentials for this relying party; finish: the
// account whose credential signed).
//
// Each begin stores its ceremony's state (go-webauthn's SessionData) in
// Redis under its challenge, for ChallengeTTL; a finish takes it by the
// challenge its client data carries, once: the key is then marked used
// (until it would have expired), so a replayed response is told apart
// from an expired one, and neither is verified again. A response is
// checked for this server's site (its origin among the configured ones,
// its authenticator data hashed for the relying-party ID) before
// go-webauthn verifies it whole (signature, flags, challenge, origin,
// counters).
//
// The SQL rows of passkeys are sqlstore's, the RPCs internal/rpc's.
package passkeys

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/redis/go-redis/v9"
)

// Errors of the ceremonies.
var (
	// ErrOff: the server has no relying-party ID configured.
	ErrOff = errors.New("passkeys are not configured on this server")
	// ErrMalformed: the client's response does not parse as WebAuthn
	// JSON (PublicKeyCredential.toJSON()).
	ErrMalformed = errors.New("malformed passkey response")
	// ErrChallengeExpired: no ceremony has this challenge (it expired,
	// was never issued, or is another player's or ceremony's).
	ErrChallengeExpired = errors.New("passkey challenge expired or unknown")
	// ErrChallengeUsed: the challenge was answered once already (a
	// replayed response).
	ErrChallengeUsed = errors.New("passkey challenge already used")
	// ErrWrongSite: the response is for another site: its origin is not
	// one of this server's, or its authenticator data is for another
	// relying-party ID (a passkey registered elsewhere).
	ErrWrongSite = errors.New("passkey response for another site")
	// ErrUnknown: no account has the credential (never registered here,
	// or removed).
	ErrUnknown = errors.New("passkey unknown")
	// ErrRefused: the response does not verify (signature, flags, a
	// signature counter gone backwards: a cloned authenticator).
	ErrRefused = errors.New("passkey response refused")
)

// Config is the relying party.
type Config struct {
	// RPID is the relying-party ID: the site's domain ("example.com",
	// "localhost"), which every passkey is bound to. Empty turns passkeys
	// off.
	RPID string
	// Origins are the origins whose pages may run the ceremonies
	// ("https://play.example.com"); each one's host must be RPID or a
	// subdomain of it.
	Origins []string
	// DisplayName is the relying party's name authenticators show
	// (default "Tabuleiro").
	DisplayName string
	// ChallengeTTL is how long a begun ceremony may be finished (default
	// 5 minutes).
	ChallengeTTL time.Duration
}

// Ceremonies runs the ceremonies of one relying party.
type Ceremonies struct {
	wa      *webauthn.WebAuthn
	cfg     Config
	rdb     redis.UniversalClient
	prefix  string
	rpHash  [32]byte
	origins []string
}

// New returns the ceremonies of cfg, their state in Redis under prefix;
// nil (passkeys off) when cfg.RPID is empty.
func New(rdb redis.UniversalClient, prefix string, cfg Config) (*Ceremonies, error) {
	if cfg.RPID == "" {
		return nil, nil
	}
	if len(cfg.Origins) == 0 {
		return nil, fmt.Errorf("passkeys: relying party %q has no origins", cfg.RPID)
	}
	if cfg.DisplayName == "" {
		cfg.DisplayName = "Tabuleiro"
	}
	if cfg.ChallengeTTL == 0 {
		cfg.ChallengeTTL = 5 * time.Minute
	}
	origins := make([]string, 0, len(cfg.Origins))
	for _, o := range cfg.Origins {
		origins = append(origins, strings.TrimSuffix(strings.ToLower(o), "/"))
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID: cfg.RPID, RPDisplayName: cfg.DisplayName, RPOrigins: cfg.Origins,
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementRequired,
			UserVerification: protocol.VerificationPreferred,
		},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: cfg.ChallengeTTL},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: cfg.ChallengeTTL},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	return &Ceremonies{wa: wa, cfg: cfg, rdb: rdb, prefix: prefix, rpHash: sha256.Sum256([]byte(cfg.RPID)), origins: origins}, nil
}

// RPID is the relying-party ID.
func (c *Ceremonies) RPID() string { return c.cfg.RPID }

// User is an account as a WebAuthn user: its user handle is its player
// id's bytes (opaque, no personal data).
type User struct {
	PlayerID    string
	Username    string
	DisplayName string
	Credentials []webauthn.Credential
}

var _ webauthn.User = User{}

// WebAuthnID is the user handle.
func (u User) WebAuthnID() []byte { return []byte(u.PlayerID) }

// WebAuthnName is the account's username.
func (u User) WebAuthnName() string { return u.Username }

// WebAuthnDisplayName is the player's display name.
func (u User) WebAuthnDisplayName() string { return u.DisplayName }

// WebAuthnCredentials are the account's passkeys.
func (u User) WebAuthnCredentials() []webauthn.Credential { return u.Credentials }

// Ceremony kinds, stored with the state.
const (
	kindRegister = "register"
	kindSignIn   = "signin"
)

// state is a begun ceremony's record in Redis.
type state struct {
	Kind    string               `json:"kind"`
	Player  string               `json:"player,omitempty"`
	Session webauthn.SessionData `json:"session"`
}

// key is the Redis key of the ceremony whose challenge (base64url) is
// challenge.
func (c *Ceremonies) key(challenge string) string { return c.prefix + "passkey-challenge:" + challenge }

// Key is the Redis key of the ceremony with the challenge (tests expire it).
func (c *Ceremonies) Key(challenge string) string { return c.key(challenge) }

func (c *Ceremonies) save(ctx context.Context, st state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode passkey ceremony: %w", err)
	}
	if err := c.rdb.Set(ctx, c.key(st.Session.Challenge), b, c.cfg.ChallengeTTL).Err(); err != nil {
		return fmt.Errorf("save passkey ceremony: %w", err)
	}
	return nil
}

// usedMark replaces a taken ceremony's state until its key expires.
const usedMark = "used"

// takeScript: KEYS[1] the ceremony. Returns its state and marks it used
// (keeping its expiry); "used" when it was taken before; false when there
// is none.
var takeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return false end
if v == 'used' then return 'used' end
redis.call('SET', KEYS[1], 'used', 'KEEPTTL')
return v
`)

// take takes the ceremony of challenge, of kind and (for a registration)
// of player, once.
func (c *Ceremonies) take(ctx context.Context, challenge, kind, player string) (webauthn.SessionData, error) {
	if challenge == "" {
		return webauthn.SessionData{}, ErrChallengeExpired
	}
	v, err := takeScript.Run(ctx, c.rdb, []string{c.key(challenge)}).Text()
	switch {
	case errors.Is(err, redis.Nil):
		return webauthn.SessionData{}, ErrChallengeExpired
	case err != nil:
		return webauthn.SessionData{}, fmt.Errorf("take passkey ceremony: %w", err)
	case v == usedMark:
		return webauthn.SessionData{}, ErrChallengeUsed
	}
	var st state
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return webauthn.SessionData{}, fmt.Errorf("decode passkey ceremony: %w", err)
	}
	if st.Kind != kind || st.Player != player {
		return webauthn.SessionData{}, ErrChallengeExpired
	}
	return st.Session, nil
}

// checkSite refuses a response from another origin or for another
// relying party.
func (c *Ceremonies) checkSite(origin string, rpIDHash []byte) error {
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	found := false
	for _, want := range c.origins {
		found = found || o == want
	}
	if !found {
		return fmt.Errorf("origin %q is not one of this server's: %w", clip(origin), ErrWrongSite)
	}
	if !bytes.Equal(rpIDHash, c.rpHash[:]) {
		return fmt.Errorf("the authenticator data is for another relying-party ID than %q: %w", c.cfg.RPID, ErrWrongSite)
	}
	return nil
}

// BeginRegistration begins registering a passkey of the account u (whose
// existing passkeys are excluded: an authenticator holding one declines).
// It returns PublicKeyCredentialCreationOptionsJSON, the argument of
// PublicKeyCredential.parseCreationOptionsFromJSON().
func (c *Ceremonies) BeginRegistration(ctx context.Context, u User) ([]byte, error) {
	creation, session, err := c.wa.BeginRegistration(u, webauthn.WithExclusions(webauthn.Credentials(u.Credentials).CredentialDescriptors()))
	if err != nil {
		return nil, fmt.Errorf("begin passkey registration: %w", err)
	}
	if err := c.save(ctx, state{Kind: kindRegister, Player: u.PlayerID, Session: *session}); err != nil {
		return nil, err
	}
	return json.Marshal(creation.Response)
}

// FinishRegistration verifies the response (PublicKeyCredential.toJSON()
// of the created credential) to a registration u began, and returns the
// credential to store.
func (c *Ceremonies) FinishRegistration(ctx context.Context, u User, response []byte) (*webauthn.Credential, error) {
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrMalformed, detail(err))
	}
	session, err := c.take(ctx, parsed.Response.CollectedClientData.Challenge, kindRegister, u.PlayerID)
	if err != nil {
		return nil, err
	}
	if err := c.checkSite(parsed.Response.CollectedClientData.Origin, parsed.Response.AttestationObject.AuthData.RPIDHash); err != nil {
		return nil, err
	}
	cred, err := c.wa.CreateCredential(u, session, parsed)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrRefused, detail(err))
	}
	return cred, nil
}

// BeginSignIn begins a usernameless sign-in. It returns
// PublicKeyCredentialRequestOptionsJSON, the argument of
// PublicKeyCredential.parseRequestOptionsFromJSON().
func (c *Ceremonies) BeginSignIn(ctx context.Context) ([]byte, error) {
	assertion, session, err := c.wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return nil, fmt.Errorf("begin passkey sign-in: %w", err)
	}
	if err := c.save(ctx, state{Kind: kindSignIn, Session: *session}); err != nil {
		return nil, err
	}
	return json.Marshal(assertion.Response)
}

// Lookup returns the account owning the credential id (raw bytes),
// ErrUnknown when none does; userHandle is the one the authenticator
// gave.
type Lookup func(ctx context.Context, credentialID, userHandle []byte) (User, error)

// FinishSignIn verifies a sign-in response (PublicKeyCredential.toJSON()
// of the assertion) and returns the account and its credential as the
// ceremony updated it (sign count, flags), to store.
func (c *Ceremonies) FinishSignIn(ctx context.Context, response []byte, lookup Lookup) (User, *webauthn.Credential, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return User{}, nil, fmt.Errorf("%w: %s", ErrMalformed, detail(err))
	}
	session, err := c.take(ctx, parsed.Response.CollectedClientData.Challenge, kindSignIn, "")
	if err != nil {
		return User{}, nil, err
	}
	if err := c.checkSite(parsed.Response.CollectedClientData.Origin, parsed.Response.AuthenticatorData.RPIDHash); err != nil {
		return User{}, nil, err
	}
	u, err := lookup(ctx, parsed.RawID, parsed.Response.UserHandle)
	if err != nil {
		return User{}, nil, err
	}
	wu, cred, err := c.wa.ValidatePasskeyLogin(func([]byte, []byte) (webauthn.User, error) { return u, nil }, session, parsed)
	if err != nil {
		return User{}, nil, fmt.Errorf("%w: %s", ErrRefused, detail(err))
	}
	if cred.Authenticator.CloneWarning {
		return User{}, nil, fmt.Errorf("%w: the signature counter went backwards (a cloned authenticator?)", ErrRefused)
	}
	return wu.(User), cred, nil
}

// CredentialID is a credential id's text form (base64url, no padding), the
// store's key.
func CredentialID(raw []byte) string { return base64.RawURLEncoding.EncodeToString(raw) }

// Encode is a credential's stored form (JSON).
func Encode(cred *webauthn.Credential) (string, error) {
	b, err := json.Marshal(cred)
	if err != nil {
		return "", fmt.Errorf("encode passkey: %w", err)
	}
	return string(b), nil
}

// Decode reads a stored credential.
func Decode(s string) (webauthn.Credential, error) {
	var c webauthn.Credential
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("decode passkey: %w", err)
	}
	return c, nil
}

// detail is a go-webauthn error's readable part.
func detail(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		if pe.DevInfo != "" {
			return clip(pe.Details + " (" + pe.DevInfo + ")")
		}
		return clip(pe.Details)
	}
	return clip(err.Error())
}

// clip cuts s to 120 characters.
func clip(s string) string {
	if r := []rune(s); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return s
}

// ChallengeTTL is how long a begun ceremony may be finished.
func (c *Ceremonies) ChallengeTTL() time.Duration { return c.cfg.ChallengeTTL }
