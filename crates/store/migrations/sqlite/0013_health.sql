-- One row the readiness probe rewrites: a write that reaches the file proves the store is
-- writable (a read-only data directory or a full disk fails it).
CREATE TABLE health (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    probed_at INTEGER NOT NULL
);
