-- Environments: the workspaces Sessions run in (managed, `openai_hosted`, or the user's own
-- machine, `self_hosted`). `doc` is Core's document (spec, status, sealed `env` values…).
-- A self-hosted Environment's Runtime enrolls with a one-time token and then authenticates with
-- a per-Environment credential; only the digests of both are kept, each unique so a digest
-- names at most one Environment. An Environment outlives no Session that names it: Sessions
-- keep its ID in their documents and Core deletes the Environment it created with a Session.

CREATE TABLE environments (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    id                 TEXT NOT NULL UNIQUE,
    created_at         INTEGER NOT NULL,
    -- `openai_hosted` or `self_hosted`; `environments.list?type=` filters on it.
    kind               TEXT NOT NULL,
    enrollment_digest  TEXT UNIQUE,
    credential_digest  TEXT UNIQUE,
    doc                TEXT NOT NULL
);
CREATE INDEX environments_kind ON environments (kind, seq);
