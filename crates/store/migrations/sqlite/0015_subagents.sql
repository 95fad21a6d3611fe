-- A multi-agent Session's Subagents, their Turns and their Items. Child Turns and Items live
-- apart from the root's `turns` and `items`, so the Session's own lists never show them; each
-- row names its Session and goes when the Session goes. IDs are globally unique, with a
-- (session_id, id) key the upserts target, as for `turns` and `items`.

CREATE TABLE subagents (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    doc         TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX subagents_session ON subagents (session_id, seq);

CREATE TABLE subagent_turns (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    subagent_id  TEXT NOT NULL,
    doc          TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX subagent_turns_subagent ON subagent_turns (session_id, subagent_id, seq);

CREATE TABLE subagent_items (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    subagent_id  TEXT NOT NULL,
    turn_id      TEXT NOT NULL,
    doc          TEXT NOT NULL,
    UNIQUE (session_id, id)
);
CREATE INDEX subagent_items_subagent ON subagent_items (session_id, subagent_id, seq);
