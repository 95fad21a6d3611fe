//! Vault and credential records, and the store operations on them.
//!
//! A separate trait ([`VaultStore`], a supertrait of [`crate::Store`]) so that Vaults live in
//! their own files beside the Session and Environment operations.

use async_trait::async_trait;

use crate::{Page, PageQuery, Result};

/// A Vault: identity, lifecycle status, public metadata (JSON text) and Core's document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultRecord {
    pub id: String,
    pub project_id: String,
    pub created_at: i64,
    /// `active` or `archived`.
    pub status: String,
    pub metadata: String,
    pub doc: String,
}

/// A credential of one Vault. `doc` holds the sealed secrets; nothing in it is plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialRecord {
    pub id: String,
    pub project_id: String,
    pub vault_id: String,
    pub created_at: i64,
    pub status: String,
    pub metadata: String,
    pub doc: String,
}

/// List filters shared by Vaults and credentials: any of `status` (empty = all), and every
/// `metadata` pair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VaultFilter {
    pub status: Vec<String>,
    pub metadata: Vec<(String, String)>,
}

#[async_trait]
pub trait VaultStore: Send + Sync + 'static {
    /// Inserts or replaces a Vault (the row keeps its position and `created_at`).
    async fn put_vault(&self, vault: &VaultRecord) -> Result<()>;
    async fn get_vault(&self, project: &str, id: &str) -> Result<Option<VaultRecord>>;
    async fn list_vaults(
        &self,
        project: &str,
        q: &PageQuery,
        filter: &VaultFilter,
    ) -> Result<Page<VaultRecord>>;
    /// Deletes a Vault with its credentials; false when absent from `project`.
    async fn delete_vault(&self, project: &str, id: &str) -> Result<bool>;

    /// Inserts or replaces a credential. Its Vault must exist (else a database error).
    async fn put_credential(&self, credential: &CredentialRecord) -> Result<()>;
    /// The credential `id` of Vault `vault_id`.
    async fn get_credential(
        &self,
        project: &str,
        vault_id: &str,
        id: &str,
    ) -> Result<Option<CredentialRecord>>;
    async fn list_credentials(
        &self,
        project: &str,
        vault_id: &str,
        q: &PageQuery,
        filter: &VaultFilter,
    ) -> Result<Page<CredentialRecord>>;
    /// Every active credential of these Vaults, in creation order (credential selection).
    async fn credentials_of(
        &self,
        project: &str,
        vault_ids: &[String],
    ) -> Result<Vec<CredentialRecord>>;
    async fn delete_credential(&self, project: &str, vault_id: &str, id: &str) -> Result<bool>;
}
