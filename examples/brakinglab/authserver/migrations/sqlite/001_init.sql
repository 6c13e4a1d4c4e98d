-- Registered (DCR) public clients. CIMD clients are fetched, not stored.
CREATE TABLE authserver_clients (
    client_id    TEXT PRIMARY KEY,
    metadata     TEXT NOT NULL,      -- JSON oauthex.ClientRegistrationMetadata
    created_at   INTEGER NOT NULL,   -- unix seconds
    last_used_at INTEGER             -- unix seconds of the last token issued; NULL = never used
);
CREATE INDEX authserver_clients_prune
    ON authserver_clients ((last_used_at IS NOT NULL), COALESCE(last_used_at, created_at));

-- Access-token signing keys. The newest row signs; every row is published in /jwks.
CREATE TABLE authserver_signing_keys (
    kid           TEXT PRIMARY KEY,
    alg           TEXT NOT NULL,
    private_pkcs8 BLOB NOT NULL,
    created_at    INTEGER NOT NULL
);

-- One family per authorization grant; rotation moves current_hash forward.
CREATE TABLE authserver_refresh_families (
    family_id    TEXT PRIMARY KEY,
    client_id    TEXT NOT NULL,
    subject      TEXT NOT NULL,
    scope        TEXT NOT NULL,
    resource     TEXT NOT NULL,
    current_hash TEXT NOT NULL,      -- SHA-256 of the only refresh token still usable
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    revoked_at   INTEGER
);
CREATE INDEX authserver_refresh_families_client ON authserver_refresh_families (client_id);

-- Every refresh token ever issued (hashed), so reuse of a rotated one is recognised.
CREATE TABLE authserver_refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id  TEXT NOT NULL REFERENCES authserver_refresh_families (family_id) ON DELETE CASCADE,
    issued_at  INTEGER NOT NULL
);
CREATE INDEX authserver_refresh_tokens_family ON authserver_refresh_tokens (family_id);
