//! The durable store.
//!
//! Core talks to SQL only through the [`Store`] trait. Rows carry JSON documents as plain text
//! (never a database JSON type, which would rewrite numbers and reorder keys), so what Core
//! saved is exactly what it reads back. The embedded engine is SQLite ([`sqlite::SqliteStore`]);
//! the queries are written with `$N` placeholders and portable SQL so that a PostgreSQL engine
//! can implement the same trait.

pub mod page;
pub mod sqlite;
pub mod writer;

use async_trait::async_trait;

pub use page::{Order, Page, PageQuery};
pub use sqlite::SqliteStore;

/// A store failure. Callers map it to a 500 (or 503) at the HTTP edge; details are logged only.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the pagination cursor names no row")]
    UnknownCursor,
    #[error("the write task has stopped")]
    WriterGone,
    #[error("a batched transaction failed: {0}")]
    Batch(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// A Project API key, without its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub id: String,
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
    pub created_at: i64,
    pub updated_at: i64,
    /// The saved configuration, JSON text.
    pub config: String,
}

#[async_trait]
pub trait Store: Send + Sync + 'static {
    async fn insert_api_key(&self, key: &ApiKeyRecord) -> Result<()>;
    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>>;
    /// Marks a key revoked; false when no active key has that ID.
    async fn revoke_api_key(&self, id: &str, at: i64) -> Result<bool>;
    /// The active (not revoked) key with this digest.
    async fn active_api_key(&self, digest: &str) -> Result<Option<ApiKeyRecord>>;
    async fn count_api_keys(&self) -> Result<i64>;

    async fn insert_agent(&self, agent: &AgentRecord) -> Result<()>;
    async fn get_agent(&self, id: &str) -> Result<Option<AgentRecord>>;
    /// Replaces config and updated_at; false when the Agent does not exist.
    async fn update_agent(&self, agent: &AgentRecord) -> Result<bool>;
    async fn delete_agent(&self, id: &str) -> Result<bool>;
    async fn list_agents(&self, q: &PageQuery) -> Result<Page<AgentRecord>>;
}
