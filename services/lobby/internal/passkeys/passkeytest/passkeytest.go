// Package passkeytest is a software WebAuthn authenticator for tests: it
// answers the options of BeginPasskeyRegistration and BeginPasskeySignIn
// as a browser and a platform authenticator would (PublicKeyCredential
// toJSON(): "none" attestation, ES256 keys, a signature counter), and can
// be told to lie (another origin, another relying party) for attack
// tests.
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
)

// Authenticator holds one discoverable credential once Create made it.
type Authenticator struct {
	// RPID, when set, is the relying-party ID the authenticator hashes
	// into its data instead of the options' (a passkey of another site).
	RPID string

	key        *ecdsa.PrivateKey
	id         []byte
	userHandle []byte
	rpID       string
	count      uint32
}

var b64 = base64.RawURLEncoding

// ID is the credential's id as the lobby names it (base64url).
func (a *Authenticator) ID() string { return b64.EncodeToString(a.id) }

type creationOptions struct {
	Challenge string `json:"challenge"`
	RP        struct {
		ID string `json:"id"`
	} `json:"rp"`
	User struct {
		ID string `json:"id"`
	} `json:"user"`
}

type requestOptions struct {
	Challenge string `json:"challenge"`
	RPID      string `json:"rpId"`
}

func clientData(typ, challenge, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": origin, "crossOrigin": false})
	return b
}

const (
	flagUP = 0x01
	flagUV = 0x04
	flagAT = 0x40
)

func (a *Authenticator) authData(rpID string, flags byte, attested []byte) []byte {
	h := sha256.Sum256([]byte(rpID))
	out := append([]byte{}, h[:]...)
	out = append(out, flags)
	out = binary.BigEndian.AppendUint32(out, a.count)
	return append(out, attested...)
}

// Create answers registration options (options_json) from origin with a
// new credential, and returns RegistrationResponseJSON.
func (a *Authenticator) Create(optionsJSON, origin string) (string, error) {
	var o creationOptions
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
		return "", fmt.Errorf("creation options: %w", err)
	}
	uh, err := b64.DecodeString(o.User.ID)
	if err != nil {
		return "", fmt.Errorf("user id: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	a.key, a.id, a.userHandle, a.rpID, a.count = key, id, uh, o.RP.ID, 0
	if a.RPID != "" {
		a.rpID = a.RPID
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		return "", err
	}
	raw := pub.Bytes() // 0x04 || X || Y
	cose, err := webauthncbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: raw[1:33], -3: raw[33:65]})
	if err != nil {
		return "", err
	}
	attested := make([]byte, 16) // AAGUID: none
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(id)))
	attested = append(attested, id...)
	attested = append(attested, cose...)
	ad := a.authData(a.rpID, flagUP|flagUV|flagAT, attested)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": ad})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{
		"id": b64.EncodeToString(id), "rawId": b64.EncodeToString(id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(clientData("webauthn.create", o.Challenge, origin)),
			"attestationObject": b64.EncodeToString(att),
			"transports":        []string{"internal"},
		},
	})
	return string(b), err
}

// Get answers sign-in options (options_json) from origin with an
// assertion of the credential Create made, and returns
// AuthenticationResponseJSON. Each assertion advances the counter.
func (a *Authenticator) Get(optionsJSON, origin string) (string, error) {
	if a.key == nil {
		return "", fmt.Errorf("no credential: Create one first")
	}
	var o requestOptions
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
		return "", fmt.Errorf("request options: %w", err)
	}
	a.count++
	cd := clientData("webauthn.get", o.Challenge, origin)
	ad := a.authData(a.rpID, flagUP|flagUV, nil)
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, digest[:])
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{
		"id": b64.EncodeToString(a.id), "rawId": b64.EncodeToString(a.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(cd),
			"authenticatorData": b64.EncodeToString(ad),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString(a.userHandle),
		},
	})
	return string(b), err
}

// Tamper flips a bit of an AuthenticationResponseJSON's signature.
func Tamper(responseJSON string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(responseJSON), &m); err != nil {
		return responseJSON
	}
	r, _ := m["response"].(map[string]any)
	sig, _ := r["signature"].(string)
	raw, err := b64.DecodeString(sig)
	if err != nil || len(raw) == 0 {
		return responseJSON
	}
	raw[len(raw)-1] ^= 1
	r["signature"] = b64.EncodeToString(raw)
	b, _ := json.Marshal(m)
	return string(b)
}
