-- Session creates under an Idempotency-Key (core-contracts §2.3 step 2). The key is unique, so
-- of concurrent creates with one key exactly one commits its Session. No foreign key: the record
-- outlives its Session, because a retry after the Session was deleted is a conflict, not a new
-- Session.
CREATE TABLE session_create_keys (
    key          TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
