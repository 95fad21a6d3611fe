-- Project API keys: only a SHA-256 digest of the secret is kept.
CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    digest      TEXT NOT NULL UNIQUE,
    hint        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
);

-- Agents. `seq` orders pages; `config` is the saved configuration as JSON text (TEXT, never a
-- JSON column type: numbers and key order must survive byte for byte), secrets already sealed.
CREATE TABLE agents (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    config      TEXT NOT NULL
);
