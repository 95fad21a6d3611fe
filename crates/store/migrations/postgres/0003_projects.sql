-- Projects (issue 16), as SQLite's 0018: every resource belongs to one Project. Top-level rows
-- (keys, Agents, Sessions, Environments, Vaults and their credentials, idempotency and
-- create-key records, deletions) carry `project_id`; Turns, Items, calls and Subagents follow
-- their Session. The first Project is created here and every existing row put in it, so an
-- empty database's first start lands its key there too.

CREATE TABLE projects (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    archived_at  BIGINT
);

-- `proj_` and 32 lowercase hex digits, the shape of every resource ID.
INSERT INTO projects (id, name, created_at)
VALUES ('proj_' || md5(random()::text || clock_timestamp()::text), 'Default Project',
        extract(epoch FROM now())::BIGINT);

ALTER TABLE api_keys ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE environments ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE vaults ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE vault_credentials ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE session_deletions ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE session_create_keys ADD COLUMN project_id TEXT NOT NULL DEFAULT '';

UPDATE api_keys SET project_id = (SELECT id FROM projects);
UPDATE agents SET project_id = (SELECT id FROM projects);
UPDATE sessions SET project_id = (SELECT id FROM projects);
UPDATE idempotency SET project_id = (SELECT id FROM projects);
UPDATE environments SET project_id = (SELECT id FROM projects);
UPDATE vaults SET project_id = (SELECT id FROM projects);
UPDATE vault_credentials SET project_id = (SELECT id FROM projects);
UPDATE session_deletions SET project_id = (SELECT id FROM projects);
UPDATE session_create_keys SET project_id = (SELECT id FROM projects);

-- Create keys are unique per Project: two Projects may use the same Idempotency-Key.
ALTER TABLE session_create_keys DROP CONSTRAINT session_create_keys_pkey;
ALTER TABLE session_create_keys ADD PRIMARY KEY (project_id, key);

CREATE INDEX api_keys_project ON api_keys (project_id);
CREATE INDEX agents_project ON agents (project_id, seq);
CREATE INDEX sessions_project ON sessions (project_id, seq);
CREATE INDEX environments_project ON environments (project_id, seq);
CREATE INDEX vaults_project ON vaults (project_id, seq);
