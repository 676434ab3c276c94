-- +goose Up
-- accounts are the players who claimed their guest identity (lobby.v1
-- ClaimAccount): a unique username and a password to sign in with from any
-- device. A player without a row here is a guest. username is as its owner
-- wrote it; username_key is its PRECIS UsernameCaseMapped form (RFC 8265:
-- width-mapped, case-folded, NFC), unique; username_skeleton is the
-- key's Unicode confusables skeleton (UTS #39), unique too, so that no
-- username may look like another; shown_skeleton is the skeleton of the
-- username as written (a capital I looks like an l), which a new
-- username's skeletons may not meet either. password_hash is argon2id in the PHC
-- string format ($argon2id$v=19$m=...,t=...,p=...$salt$key), which
-- carries its own parameters.
CREATE TABLE accounts (
    player_id         TEXT PRIMARY KEY REFERENCES players (player_id),
    username          TEXT NOT NULL,
    username_key      TEXT NOT NULL UNIQUE,
    username_skeleton TEXT NOT NULL UNIQUE,
    shown_skeleton    TEXT NOT NULL,
    password_hash     TEXT NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    password_set_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE accounts;
