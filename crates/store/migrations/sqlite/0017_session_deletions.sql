-- Deleted Sessions whose Runtime has not yet confirmed that it ended the Session's process and
-- removed its state directory (and, for a Session that created a managed Environment, its
-- workspace). The row keeps only IDs: the Session's content is already gone from every other
-- table. Core sends the release again when a Runtime that may hold the state connects, and
-- drops the row once the Runtime confirms.
CREATE TABLE session_deletions (
    session_id       TEXT PRIMARY KEY,
    -- The self-hosted Environment whose enrolled Runtime ran the Session; NULL: the deployment
    -- Runtimes.
    environment_id   TEXT,
    -- A managed workspace to remove with the Session, and the deployment Runtime it lives on.
    workspace_id     TEXT,
    workspace_runtime TEXT,
    created_at       INTEGER NOT NULL
);
