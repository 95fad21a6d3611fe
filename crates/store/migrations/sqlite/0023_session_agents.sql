-- A Session's agent, written once when the Session is created. It never changes, while the
-- Session's row is rewritten on every change (a dozen times a Turn), and an engine rewrites a
-- whole row even when one column changes: so the agent, often most of a Session's bytes, has a
-- table of its own. A Session created before this table keeps its agent in `sessions.doc`
-- until its next write moves it here; Core reads either.
CREATE TABLE session_agents (
    session_id  TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    agent       TEXT NOT NULL
);
