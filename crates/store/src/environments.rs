//! Environment records: the workspaces Sessions run in, with the digests a self-hosted
//! Environment's Runtime authenticates with.

/// An Environment: identity, kind, the two enrollment digests, and Core's document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentRecord {
    pub id: String,
    pub project_id: String,
    pub created_at: i64,
    /// `openai_hosted` or `self_hosted`.
    pub kind: String,
    /// Hex SHA-256 of the current one-time enrollment token; cleared once it is exchanged, and
    /// replaced when a new one is minted.
    pub enrollment_digest: Option<String>,
    /// Hex SHA-256 of the credential the enrolled Runtime presents on every connection.
    pub credential_digest: Option<String>,
    pub doc: String,
}

/// `environments.list` filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvironmentFilter {
    pub kind: Option<String>,
}
