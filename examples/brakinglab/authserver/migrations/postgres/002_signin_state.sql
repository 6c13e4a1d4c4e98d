-- Sign-in state, in the database so that every replica on it shares it: a
-- browser's next request may reach another replica. Identifiers and codes
-- are stored as SHA-256 hashes; times are unix milliseconds.

-- Validated /authorize requests waiting for sign-in and consent.
CREATE TABLE authserver_pending (
    id_hash    TEXT PRIMARY KEY,
    body       TEXT NOT NULL,              -- JSON: client, redirect URI, state, PKCE challenge, resource, scopes, browser
    source     TEXT NOT NULL,              -- the address that opened it (IPv4, or IPv6 /64)
    failures   INTEGER NOT NULL DEFAULT 0, -- wrong passwords so far
    expires_at BIGINT NOT NULL
);
CREATE INDEX authserver_pending_expires ON authserver_pending (expires_at);
CREATE INDEX authserver_pending_source ON authserver_pending (source, expires_at);

-- Signed-in browsers.
CREATE TABLE authserver_sessions (
    id_hash    TEXT PRIMARY KEY,
    subject    TEXT NOT NULL,
    name       TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX authserver_sessions_subject ON authserver_sessions (subject, expires_at);
CREATE INDEX authserver_sessions_expires ON authserver_sessions (expires_at);

-- Issued authorization codes; uses > 1 is a replay.
CREATE TABLE authserver_codes (
    code_hash  TEXT PRIMARY KEY,
    body       TEXT NOT NULL,              -- JSON: client, redirect URI, PKCE challenge, resource, scopes
    subject    TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    uses       INTEGER NOT NULL DEFAULT 0,
    family_id  TEXT NOT NULL DEFAULT ''    -- the refresh-token family the first exchange produced
);
CREATE INDEX authserver_codes_subject ON authserver_codes (subject, expires_at);
CREATE INDEX authserver_codes_expires ON authserver_codes (expires_at);

-- Server-wide secrets (the consent CSRF key), created by the first replica.
CREATE TABLE authserver_secrets (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
