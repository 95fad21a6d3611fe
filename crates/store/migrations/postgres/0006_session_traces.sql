-- A root Turn's trace (`sessions.traces`): its spans as OTLP JSON documents, one a line,
-- appended as they finish. `seq` is the Turn's own, so traces page in Turn creation order, and
-- the row goes when its Session goes.

CREATE TABLE session_traces (
    seq         BIGINT PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE REFERENCES turns (id) ON DELETE CASCADE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    spans       TEXT NOT NULL
);
CREATE INDEX session_traces_session ON session_traces (session_id, seq);
