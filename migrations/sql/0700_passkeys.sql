-- +goose Up
-- passkeys are the WebAuthn credentials of accounts (lobby.v1
-- FinishPasskeyRegistration), each signing its owner in with no password
-- (FinishPasskeySignIn). credential_id is the credential's raw id,
-- base64url without padding, unique across accounts (an authenticator
-- never makes one id twice; a copy is refused); credential is the
-- verified credential as go-webauthn's webauthn.Credential JSON (public
-- key, sign count, flags, authenticator AAGUID, transports), rewritten
-- after each sign-in with the new sign count and flags. name is the
-- owner's label ("phone", "laptop"). A removed passkey's row is deleted:
-- its assertions then name no account.
CREATE TABLE passkeys (
    credential_id TEXT PRIMARY KEY,
    player_id     TEXT NOT NULL REFERENCES accounts (player_id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    credential    TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at  TIMESTAMPTZ
);
CREATE INDEX passkeys_player ON passkeys (player_id, created_at);

-- +goose Down
DROP TABLE passkeys;
