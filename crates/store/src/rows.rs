//! Records from result rows, once for both engines.
//!
//! Both engines store the same columns under the same names and types (text, 64-bit integers,
//! and their NULLs), so a record reads the same from an SQLite row as from a PostgreSQL one:
//! each reader below takes any row that [`Columns`] can read.

use sqlx::postgres::{PgRow, Postgres};
use sqlx::sqlite::{Sqlite, SqliteRow};
use sqlx::{Decode, Row, Type};

use crate::subagents::{ChildItemRecord, ChildTurnRecord, SubagentRecord};
use crate::vaults::{CredentialRecord, VaultRecord};
use crate::{
    AgentRecord, ApiKeyRecord, CallRecord, DeletionRecord, EnvironmentRecord, IdempotencyRecord,
    ItemRecord, ProjectRecord, SessionRecord, TraceRecord, TurnRecord,
};

/// A column value either engine decodes: `String`, `i64` and their `Option`s.
pub(crate) trait Field:
    for<'r> Decode<'r, Sqlite> + Type<Sqlite> + for<'r> Decode<'r, Postgres> + Type<Postgres>
{
}

impl<T> Field for T where
    T: for<'r> Decode<'r, Sqlite> + Type<Sqlite> + for<'r> Decode<'r, Postgres> + Type<Postgres>
{
}

/// A result row of either engine, read by column name.
pub(crate) trait Columns {
    /// The named column's value. Panics, as `sqlx::Row::get` does, when the query does not
    /// select it or its type differs: a mismatch between a query and its record, not data.
    fn column<T: Field>(&self, name: &str) -> T;
}

impl Columns for SqliteRow {
    fn column<T: Field>(&self, name: &str) -> T {
        self.get(name)
    }
}

impl Columns for PgRow {
    fn column<T: Field>(&self, name: &str) -> T {
        self.get(name)
    }
}

pub(crate) fn project(row: &impl Columns) -> ProjectRecord {
    ProjectRecord {
        id: row.column("id"),
        name: row.column("name"),
        created_at: row.column("created_at"),
        archived_at: row.column("archived_at"),
    }
}

pub(crate) fn api_key(row: &impl Columns) -> ApiKeyRecord {
    ApiKeyRecord {
        id: row.column("id"),
        project_id: row.column("project_id"),
        digest: row.column("digest"),
        hint: row.column("hint"),
        created_at: row.column("created_at"),
        revoked_at: row.column("revoked_at"),
    }
}

pub(crate) fn agent(row: &impl Columns) -> AgentRecord {
    AgentRecord {
        id: row.column("id"),
        project_id: row.column("project_id"),
        created_at: row.column("created_at"),
        updated_at: row.column("updated_at"),
        config: row.column("config"),
    }
}

pub(crate) fn session(row: &impl Columns) -> SessionRecord {
    SessionRecord {
        id: row.column("id"),
        project_id: row.column("project_id"),
        created_at: row.column("created_at"),
        agent_id: row.column("agent_id"),
        metadata: row.column("metadata"),
        active_turn_id: row.column("active_turn_id"),
        doc: row.column("doc"),
        agent: row.column("agent"),
    }
}

pub(crate) fn deletion(row: &impl Columns) -> DeletionRecord {
    DeletionRecord {
        session_id: row.column("session_id"),
        project_id: row.column("project_id"),
        environment_id: row.column("environment_id"),
        workspace_id: row.column("workspace_id"),
        workspace_runtime: row.column("workspace_runtime"),
        created_at: row.column("created_at"),
    }
}

pub(crate) fn environment(row: &impl Columns) -> EnvironmentRecord {
    EnvironmentRecord {
        id: row.column("id"),
        project_id: row.column("project_id"),
        created_at: row.column("created_at"),
        kind: row.column("kind"),
        enrollment_digest: row.column("enrollment_digest"),
        credential_digest: row.column("credential_digest"),
        doc: row.column("doc"),
    }
}

pub(crate) fn trace(row: &impl Columns) -> TraceRecord {
    TraceRecord {
        id: row.column("id"),
        session_id: row.column("session_id"),
        turn_doc: row.column("turn_doc"),
        spans: row.column("spans"),
    }
}

pub(crate) fn turn(row: &impl Columns) -> TurnRecord {
    TurnRecord {
        id: row.column("id"),
        session_id: row.column("session_id"),
        doc: row.column("doc"),
    }
}

pub(crate) fn item(row: &impl Columns) -> ItemRecord {
    ItemRecord {
        id: row.column("id"),
        session_id: row.column("session_id"),
        turn_id: row.column("turn_id"),
        doc: row.column("doc"),
    }
}

pub(crate) fn call(row: &impl Columns) -> CallRecord {
    CallRecord {
        session_id: row.column("session_id"),
        call_id: row.column("call_id"),
        turn_id: row.column("turn_id"),
        doc: row.column("doc"),
    }
}

pub(crate) fn idempotency(row: &impl Columns) -> IdempotencyRecord {
    IdempotencyRecord {
        project_id: row.column("project_id"),
        session_id: row.column("session_id"),
        key: row.column("key"),
        fingerprint: row.column("fingerprint"),
        created_at: row.column("created_at"),
    }
}

pub(crate) fn subagent(row: &impl Columns) -> SubagentRecord {
    SubagentRecord {
        id: row.column("id"),
        session_id: row.column("session_id"),
        doc: row.column("doc"),
    }
}

pub(crate) fn child_turn(row: &impl Columns) -> ChildTurnRecord {
    ChildTurnRecord {
        id: row.column("id"),
        session_id: row.column("session_id"),
        subagent_id: row.column("subagent_id"),
        doc: row.column("doc"),
    }
}

pub(crate) fn child_item(row: &impl Columns) -> ChildItemRecord {
    ChildItemRecord {
        id: row.column("id"),
        session_id: row.column("session_id"),
        subagent_id: row.column("subagent_id"),
        turn_id: row.column("turn_id"),
        doc: row.column("doc"),
    }
}

pub(crate) fn vault(row: &impl Columns) -> VaultRecord {
    VaultRecord {
        id: row.column("id"),
        project_id: row.column("project_id"),
        created_at: row.column("created_at"),
        status: row.column("status"),
        metadata: row.column("metadata"),
        doc: row.column("doc"),
    }
}

pub(crate) fn credential(row: &impl Columns) -> CredentialRecord {
    CredentialRecord {
        id: row.column("id"),
        project_id: row.column("project_id"),
        vault_id: row.column("vault_id"),
        created_at: row.column("created_at"),
        status: row.column("status"),
        metadata: row.column("metadata"),
        doc: row.column("doc"),
    }
}
