-- Several Core replicas on one database (issue 16). Times are milliseconds of the database's
-- clock, so replicas on machines whose clocks differ agree on what has expired.

-- Each live `serve`: its internal base URL (where other replicas forward a request for a
-- Session it holds) and the Runtime routes its links serve (`deployment/codex`,
-- `environment:env_…/codex`, a JSON array), renewed with every heartbeat.
CREATE TABLE replicas (
    id            TEXT PRIMARY KEY,
    address       TEXT NOT NULL,
    routes        TEXT NOT NULL DEFAULT '[]',
    heartbeat_at  BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL
);

-- Which replica holds a loaded Session, until when, and the fencing epoch: every change of
-- holder (and every new claim) adds one, and every Session write checks its holder's epoch in
-- its own transaction. No foreign key: a Session being created is claimed before its row is
-- written, and a claim outliving its Session is harmless (it expires).
CREATE TABLE session_claims (
    session_id  TEXT PRIMARY KEY,
    replica_id  TEXT NOT NULL,
    epoch       BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

CREATE INDEX session_claims_by_replica ON session_claims (replica_id);
