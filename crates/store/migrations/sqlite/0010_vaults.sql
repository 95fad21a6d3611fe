-- Vaults and their credentials (issue 12). A Vault groups a Project's credentials; a
-- credential holds one MCP server's bearer (`static_bearer`) or OAuth tokens (`mcp_oauth`).
-- `doc` is Core's document: the public fields, and the secrets sealed with the deployment's
-- data key (never plain text). `metadata` is the public metadata object, kept beside `doc` so
-- list filters match it without parsing the document. `status` is `active` or `archived`
-- (the list filter). Numbered 0010 so it stays clear of the workspace migrations of the same
-- round. Deleting a Vault deletes its credentials.

CREATE TABLE vaults (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    doc         TEXT NOT NULL
);

CREATE TABLE vault_credentials (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    vault_id    TEXT NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    doc         TEXT NOT NULL
);
CREATE INDEX vault_credentials_vault ON vault_credentials (vault_id, seq);
