//! The durable store.
//!
//! Core talks to SQL only through the [`Store`] trait. Rows carry JSON documents as plain text
//! (never a database JSON type, which would rewrite numbers and reorder keys), so what Core
//! saved is exactly what it reads back. Two engines implement it, each with its own migration
//! set: the embedded default, SQLite ([`sqlite::SqliteStore`]), and PostgreSQL
//! ([`postgres::PgStore`], for `--database-url postgres://…`). One parameterised suite
//! (`tests/`, `both_engines!`) runs every store behaviour on both.

// First: its macros serve the engines' modules.
#[macro_use]
mod sql;
pub mod checkpointer;
pub mod claims;
pub mod environments;
mod fixed;
pub mod key_check;
pub mod notify;
pub mod page;
pub mod postgres;
mod rows;
pub mod sessions;
pub mod sqlite;
pub mod subagents;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod traces;
pub mod vaults;
pub mod writer;

use async_trait::async_trait;

pub use claims::{ClaimOutcome, ClaimStore, Fence, Orphan, Previous, ReplicaRecord};
pub use environments::{EnvironmentFilter, EnvironmentRecord};
pub use key_check::KeyCheckStore;
pub use notify::{Notice, Notifications};
pub use page::{Order, Page, PageQuery};
pub use postgres::PgStore;
pub use sessions::{
    CallRecord, DeletionRecord, EventRecord, IdempotencyRecord, ItemRecord, SessionFilter,
    SessionGauges, SessionRecord, SessionWrite, TurnRecord,
};
pub use sqlite::SqliteStore;
pub use subagents::{ChildItemRecord, ChildTurnRecord, SubagentRecord, SubagentStore};
pub use traces::TraceRecord;
pub use vaults::{CredentialRecord, VaultFilter, VaultRecord, VaultStore};

/// A store failure. Callers map it to a 500 (or 503) at the HTTP edge; details are logged only.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The write connection's error (the writer's connection is not an sqlx one).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the pagination cursor names no row")]
    UnknownCursor,
    /// A write ran into a unique key: an idempotency key already admitted, or a Turn or Item ID
    /// that another Session owns. Nothing of the write was committed. Carries the database's
    /// message, for logs.
    #[error("the write conflicts with a stored row: {0}")]
    Conflict(String),
    #[error("the write task has stopped")]
    WriterGone,
    #[error("a batched transaction failed: {0}")]
    Batch(String),
    /// A Session write whose claim is gone or has another epoch: another replica holds the
    /// Session now. Nothing of the write was committed.
    #[error("replica {replica_id} no longer holds the Session's claim (epoch {epoch})")]
    Fenced { replica_id: String, epoch: i64 },
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// A Project: the unit of isolation. Every resource belongs to one, and a Project API key sees
/// only its own Project's resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRecord {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    /// Set when archived: the Project's keys stop authenticating; its rows stay.
    pub archived_at: Option<i64>,
}

/// A Project API key, without its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub id: String,
    /// The Project the key opens.
    pub project_id: String,
    /// Hex SHA-256 of the secret.
    pub digest: String,
    /// The first characters of the secret, to tell keys apart in listings.
    pub hint: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// A saved Agent: identity, timestamps and the configuration document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRecord {
    pub id: String,
    pub project_id: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// The saved configuration, JSON text.
    pub config: String,
}

/// The durable store.
///
/// One convention for Projects: every read, list, update-by-ID and delete of a Project-owned
/// row takes the Project as its first argument (`project: &str`), and a row of another Project
/// is simply absent (`None`, `false`, not listed, an unknown cursor); every record written
/// carries its `project_id`, and a Session's Turns, Items, calls, idempotency records and
/// Subagents follow their Session. The only unscoped methods are the deployment's own: Projects
/// and keys administration, the bearer and enrollment lookups by secret digest (their records
/// name the Project), the start-up sweeps (`unsettled_sessions`, `pending_deletions`,
/// `finish_deletion`) and the health probe.
#[async_trait]
pub trait Store: VaultStore + SubagentStore + Send + Sync + 'static {
    /// The claims of several Core replicas on one database; `None` for an engine that is one
    /// process (SQLite), where nothing is claimed or fenced.
    fn claims(&self) -> Option<std::sync::Arc<dyn ClaimStore>> {
        None
    }

    async fn insert_project(&self, project: &ProjectRecord) -> Result<()>;
    /// Every Project, oldest first (the first is the one a fresh data dir starts with).
    async fn list_projects(&self) -> Result<Vec<ProjectRecord>>;
    async fn get_project(&self, id: &str) -> Result<Option<ProjectRecord>>;
    /// Marks a Project archived; false when no unarchived Project has that ID.
    async fn archive_project(&self, id: &str, at: i64) -> Result<bool>;

    async fn insert_api_key(&self, key: &ApiKeyRecord) -> Result<()>;
    /// Every key of every Project (administration), oldest first.
    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>>;
    /// Marks a key revoked; false when no active key has that ID.
    async fn revoke_api_key(&self, id: &str, at: i64) -> Result<bool>;
    /// The active key with this digest: not revoked, and its Project not archived.
    async fn active_api_key(&self, digest: &str) -> Result<Option<ApiKeyRecord>>;
    async fn count_api_keys(&self) -> Result<i64>;
    /// Writes one tiny row and commits: fails when the store cannot be written.
    async fn probe_write(&self, now: i64) -> Result<()>;

    async fn insert_agent(&self, agent: &AgentRecord) -> Result<()>;
    async fn get_agent(&self, project: &str, id: &str) -> Result<Option<AgentRecord>>;
    /// Replaces config and updated_at; false when the Agent does not exist in its
    /// `project_id`.
    async fn update_agent(&self, agent: &AgentRecord) -> Result<bool>;
    async fn delete_agent(&self, project: &str, id: &str) -> Result<bool>;
    async fn list_agents(&self, project: &str, q: &PageQuery) -> Result<Page<AgentRecord>>;

    /// Commits one atomic change to a Session. Rows carry their Project (the Session's,
    /// Environment's and create key's `project_id`); an upsert of a Session or Environment
    /// that another Project holds changes nothing of it.
    async fn write_session(&self, write: SessionWrite) -> Result<()>;
    async fn get_session(&self, project: &str, id: &str) -> Result<Option<SessionRecord>>;
    async fn list_sessions(
        &self,
        project: &str,
        q: &PageQuery,
        filter: &SessionFilter,
    ) -> Result<Page<SessionRecord>>;
    /// Deletes a Session with its Turns, Items, calls and idempotency records, and the
    /// Environment `own_environment` (the one it created), unlinks its create key, and records
    /// `deletion` until its Runtime confirms; then no deleted content is left in the database
    /// files (see [`SqliteStore`]). False when absent from `project` (nothing is written).
    async fn delete_session(
        &self,
        project: &str,
        deletion: &DeletionRecord,
        own_environment: Option<&str>,
    ) -> Result<bool>;
    /// Deletions whose Runtime has not confirmed yet, oldest first.
    async fn pending_deletions(&self) -> Result<Vec<DeletionRecord>>;
    /// The Runtime confirmed: the deletion's record goes too.
    async fn finish_deletion(&self, session_id: &str) -> Result<()>;
    /// Sessions with an `active_turn_id`, of every Project, oldest first.
    async fn unsettled_sessions(&self) -> Result<Vec<SessionRecord>>;
    /// Sessions by document `status` and their pending required actions, over every Project
    /// (one scan; the metrics endpoint's scrape).
    async fn session_gauges(&self) -> Result<SessionGauges>;

    async fn get_turn(
        &self,
        project: &str,
        session_id: &str,
        turn_id: &str,
    ) -> Result<Option<TurnRecord>>;
    async fn list_turns(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<TurnRecord>>;
    /// Appends one OTLP JSON document of a root Turn's finished spans to its trace; nothing
    /// when that Turn of that Session is not stored (or was deleted with it).
    async fn append_trace(&self, session_id: &str, turn_id: &str, otlp: &str) -> Result<()>;
    /// A Session's traces in its Project, one per root Turn that has spans, in Turn order.
    async fn list_traces(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<TraceRecord>>;
    /// Items of a Session, or of one of its Turns.
    async fn list_items(
        &self,
        project: &str,
        session_id: &str,
        turn_id: Option<&str>,
        q: &PageQuery,
    ) -> Result<Page<ItemRecord>>;
    /// Every Item of one Turn, in order (a settling Turn marks its unfinished Items).
    async fn turn_items(
        &self,
        project: &str,
        session_id: &str,
        turn_id: &str,
    ) -> Result<Vec<ItemRecord>>;

    async fn get_call(
        &self,
        project: &str,
        session_id: &str,
        call_id: &str,
    ) -> Result<Option<CallRecord>>;
    async fn get_idempotency(
        &self,
        project: &str,
        session_id: &str,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>>;
    /// The Session create admitted under `key` in `project`, kept after its Session is deleted.
    async fn get_create_key(&self, project: &str, key: &str) -> Result<Option<IdempotencyRecord>>;

    /// Inserts or replaces an Environment (the row keeps its position). A digest another
    /// Environment holds fails with [`StoreError::Conflict`].
    async fn put_environment(&self, environment: &EnvironmentRecord) -> Result<()>;
    async fn get_environment(&self, project: &str, id: &str) -> Result<Option<EnvironmentRecord>>;
    async fn list_environments(
        &self,
        project: &str,
        q: &PageQuery,
        filter: &EnvironmentFilter,
    ) -> Result<Page<EnvironmentRecord>>;
    async fn delete_environment(&self, project: &str, id: &str) -> Result<bool>;
    /// The Environment whose current enrollment token has this digest (of any Project).
    async fn environment_by_enrollment(&self, digest: &str) -> Result<Option<EnvironmentRecord>>;
    /// The Environment whose enrolled Runtime's credential has this digest (of any Project).
    async fn environment_by_credential(&self, digest: &str) -> Result<Option<EnvironmentRecord>>;
    /// Exchanges the enrollment token with digest `enrollment_digest` for a credential: sets
    /// `credential_digest` and clears the enrollment digest in one conditional write, touching
    /// neither the kind nor the document. The Environment's ID, or `None` when no Environment
    /// holds that token any more (so of two concurrent exchanges, one wins).
    async fn exchange_enrollment(
        &self,
        enrollment_digest: &str,
        credential_digest: &str,
    ) -> Result<Option<String>>;
    /// Replaces an Environment's enrollment digest alone (a newly minted token; the old one stops
    /// working). False when there is no such Environment in `project`.
    async fn set_enrollment_digest(
        &self,
        project: &str,
        id: &str,
        enrollment_digest: &str,
    ) -> Result<bool>;

    /// Whether Session writes keep their [`SessionWrite::events`] as rows that other replicas
    /// read (PostgreSQL). SQLite serves one process: it keeps none, and this is false.
    fn keeps_events(&self) -> bool {
        false
    }
    /// A Session's event rows with `seq` greater than `after`, in `seq` order (of any Project:
    /// the caller checked the Session's).
    async fn events_after(&self, _session_id: &str, _after: i64) -> Result<Vec<EventRecord>> {
        Ok(Vec::new())
    }
    /// Deletes event rows created before `before` (seconds); how many went.
    async fn delete_events_before(&self, _before: i64) -> Result<u64> {
        Ok(0)
    }
    /// The deployment's keys epoch: changed by every key and Project change. 0 where keys
    /// changes are told through the data directory's `keys.epoch` file instead (SQLite).
    async fn keys_epoch(&self) -> Result<i64> {
        Ok(0)
    }
    /// A connection that receives other replicas' commits; `None` without replicas (SQLite).
    async fn listen(&self) -> Result<Option<Box<dyn Notifications>>> {
        Ok(None)
    }
}
