-- The data key check: a canary sealed with the deployment's data key on the first start. A
-- process whose key cannot open it refuses to start rather than seal secrets it could not
-- read back. Numbered 0021 to stay clear of the Projects migration of the same round.
CREATE TABLE data_key_check (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    sealed  TEXT NOT NULL
);
