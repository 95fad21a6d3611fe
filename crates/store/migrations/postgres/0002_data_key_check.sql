-- The data key check: a canary sealed with the deployment's data key on the first start. A
-- process whose key cannot open it refuses to start rather than seal secrets no other replica
-- could read.
CREATE TABLE data_key_check (
    id      BIGINT PRIMARY KEY CHECK (id = 1),
    sealed  TEXT NOT NULL
);
