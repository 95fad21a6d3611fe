-- Sessions and what hangs off them. Every document is JSON as TEXT (never a JSON column type:
-- numbers and key order must survive byte for byte). `seq` orders pages and is kept by upserts.
-- Every child row names its Session and goes when the Session goes.

CREATE TABLE sessions (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    created_at      INTEGER NOT NULL,
    agent_id        TEXT,
    -- A JSON object of strings; `sessions.list?metadata[k]=v` filters on it.
    metadata        TEXT NOT NULL,
    active_turn_id  TEXT,
    doc             TEXT NOT NULL
);
-- `sessions.list?agent_id=` pages.
CREATE INDEX sessions_agent ON sessions (agent_id, seq);
-- What a restarted Core must settle: few rows, so a partial index.
CREATE INDEX sessions_unsettled ON sessions (seq) WHERE active_turn_id IS NOT NULL;

-- Turns and Items have globally unique IDs, and also a (session_id, id) unique key that the
-- upserts target: an upsert of an ID that another Session owns then violates the plain `id` key
-- and fails the write, instead of rewriting the other Session's row.
CREATE TABLE turns (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    doc         TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX turns_session ON turns (session_id, seq);

CREATE TABLE items (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id     TEXT NOT NULL,
    doc         TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX items_session ON items (session_id, seq);
CREATE INDEX items_turn ON items (session_id, turn_id, seq);

-- Function calls, keyed by the call ID the model gave (unique within a Session only).
CREATE TABLE calls (
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    call_id     TEXT NOT NULL,
    turn_id     TEXT NOT NULL,
    doc         TEXT NOT NULL,
    PRIMARY KEY (session_id, call_id)
);

-- Admitted input batches under an Idempotency-Key; inserted only, never replaced.
CREATE TABLE idempotency (
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (session_id, key)
);
