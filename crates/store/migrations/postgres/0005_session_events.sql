-- Events across replicas (issue 16, design item 7): every event a Session publishes is also a
-- row here, written in the transaction of the change that produced it, with a
-- `pg_notify('switchboard_events', session_id)` in that transaction. Replicas LISTEN and read
-- the rows after the last `seq` they published. SSE stays live only: a sweeper deletes rows
-- older than a few minutes, so `created_at` (seconds) is indexed.
CREATE TABLE session_events (
    session_id  TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    project_id  TEXT NOT NULL,
    type        TEXT NOT NULL,
    json        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX session_events_created_at ON session_events (created_at);

-- Keys across replicas (design item 8): one counter, bumped (with a
-- `pg_notify('switchboard_keys', epoch)`) by every key and Project change, so each replica
-- drops its key cache and ends revoked keys' streams at once.
CREATE TABLE keys_epoch (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    epoch  BIGINT NOT NULL
);
INSERT INTO keys_epoch (id, epoch) VALUES (1, 0);
