-- The PostgreSQL schema, equal to SQLite's migrations 0001–0017 taken together (one set per
-- engine, each numbered on its own). Every document is JSON as TEXT, never `json`/`jsonb`:
-- numbers and key order must survive byte for byte. `seq` orders pages and is kept by upserts
-- (an identity column; ON CONFLICT DO UPDATE never rewrites it). Timestamps are Unix seconds.

-- Project API keys: only a SHA-256 digest of the secret is kept.
CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    digest      TEXT NOT NULL UNIQUE,
    hint        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);

CREATE TABLE agents (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    config      TEXT NOT NULL
);

CREATE TABLE sessions (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    created_at      BIGINT NOT NULL,
    agent_id        TEXT,
    -- A JSON object of strings; `sessions.list?metadata[k]=v` filters on it.
    metadata        TEXT NOT NULL,
    active_turn_id  TEXT,
    doc             TEXT NOT NULL
);
CREATE INDEX sessions_agent ON sessions (agent_id, seq);
CREATE INDEX sessions_unsettled ON sessions (seq) WHERE active_turn_id IS NOT NULL;

-- Turns and Items have globally unique IDs and a (session_id, id) key the upserts target: an
-- upsert of an ID another Session owns violates the plain `id` key and fails the write.
CREATE TABLE turns (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    doc         TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX turns_session ON turns (session_id, seq);

CREATE TABLE items (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id     TEXT NOT NULL,
    doc         TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX items_session ON items (session_id, seq);
CREATE INDEX items_turn ON items (session_id, turn_id, seq);

CREATE TABLE calls (
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    call_id     TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    doc         TEXT NOT NULL,
    PRIMARY KEY (session_id, call_id)
);

CREATE TABLE idempotency (
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (session_id, key)
);

-- No foreign key: a create key outlives its Session (a retry after the delete is a conflict).
CREATE TABLE session_create_keys (
    key          TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);

CREATE TABLE environments (
    seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    created_at         BIGINT NOT NULL,
    kind               TEXT NOT NULL,
    enrollment_digest  TEXT UNIQUE,
    credential_digest  TEXT UNIQUE,
    doc                TEXT NOT NULL
);
CREATE INDEX environments_kind ON environments (kind, seq);

CREATE TABLE vaults (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL,
    status      TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    doc         TEXT NOT NULL
);

CREATE TABLE vault_credentials (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    vault_id    TEXT NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    status      TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    doc         TEXT NOT NULL
);
CREATE INDEX vault_credentials_vault ON vault_credentials (vault_id, seq);

CREATE TABLE health (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    probed_at  BIGINT NOT NULL
);

CREATE TABLE subagents (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    doc         TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX subagents_session ON subagents (session_id, seq);

CREATE TABLE subagent_turns (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    subagent_id  TEXT NOT NULL,
    doc          TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX subagent_turns_subagent ON subagent_turns (session_id, subagent_id, seq);

CREATE TABLE subagent_items (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    subagent_id  TEXT NOT NULL,
    turn_id      TEXT NOT NULL,
    doc          TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX subagent_items_subagent ON subagent_items (session_id, subagent_id, seq);

-- Deleted Sessions whose Runtime has not yet confirmed; only IDs.
CREATE TABLE session_deletions (
    session_id        TEXT PRIMARY KEY,
    environment_id    TEXT,
    workspace_id      TEXT,
    workspace_runtime TEXT,
    created_at        BIGINT NOT NULL
);
