-- Projects (issue 16): every resource belongs to one Project, and a Project API key sees only
-- its Project. Top-level rows (keys, Agents, Sessions, Environments, Vaults and their
-- credentials, idempotency and create-key records) carry `project_id`; Turns, Items, calls and
-- Subagents follow their Session. Migrating an existing data dir creates the first Project here
-- and puts every existing row in it; an empty data dir gets the same first Project, so the first
-- start's key lands in it. No foreign key on the added columns: SQLite cannot add a REFERENCES
-- column with a non-NULL default, and the store writes only Project IDs it was given.

CREATE TABLE projects (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    -- Set once: an archived Project's keys stop authenticating; its rows stay.
    archived_at  INTEGER
);

-- `proj_` and 32 lowercase hex digits, the shape of every resource ID.
INSERT INTO projects (id, name, created_at)
VALUES ('proj_' || lower(hex(randomblob(16))), 'Default Project', CAST(strftime('%s', 'now') AS INTEGER));

ALTER TABLE api_keys ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE environments ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE vaults ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE vault_credentials ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE session_deletions ADD COLUMN project_id TEXT NOT NULL DEFAULT '';

UPDATE api_keys SET project_id = (SELECT id FROM projects);
UPDATE agents SET project_id = (SELECT id FROM projects);
UPDATE sessions SET project_id = (SELECT id FROM projects);
UPDATE idempotency SET project_id = (SELECT id FROM projects);
UPDATE environments SET project_id = (SELECT id FROM projects);
UPDATE vaults SET project_id = (SELECT id FROM projects);
UPDATE vault_credentials SET project_id = (SELECT id FROM projects);
UPDATE session_deletions SET project_id = (SELECT id FROM projects);

-- Create keys are unique per Project: two Projects may use the same Idempotency-Key.
CREATE TABLE session_create_keys_by_project (
    project_id   TEXT NOT NULL,
    key          TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (project_id, key)
);
INSERT INTO session_create_keys_by_project (project_id, key, session_id, fingerprint, created_at)
SELECT (SELECT id FROM projects), key, session_id, fingerprint, created_at FROM session_create_keys;
DROP TABLE session_create_keys;
ALTER TABLE session_create_keys_by_project RENAME TO session_create_keys;

-- Project-scoped listings page in `seq` order within their Project.
CREATE INDEX api_keys_project ON api_keys (project_id);
CREATE INDEX agents_project ON agents (project_id, seq);
CREATE INDEX sessions_project ON sessions (project_id, seq);
CREATE INDEX environments_project ON environments (project_id, seq);
CREATE INDEX vaults_project ON vaults (project_id, seq);
