//! [`VaultStore`] on SQLite: the `vaults` and `vault_credentials` tables.

use async_trait::async_trait;

use super::{Cond, Listing, SqliteStore, of_project};
use crate::rows::{credential, vault};
use crate::sql;
use crate::vaults::{CredentialRecord, VaultFilter, VaultRecord, VaultStore};
use crate::writer::{Bind, Statement};
use crate::{Page, PageQuery, Result};

/// The filter conditions on a table with `status` and `metadata` columns. The metadata pairs
/// match the stored object with `json_each`, as the Session list does.
fn conditions(f: &VaultFilter, vaults: bool) -> Vec<Cond> {
    let mut out = Vec::new();
    if !f.status.is_empty() {
        // At most the two statuses; one `IN` per count keeps every fragment fixed.
        let sql = match f.status.len() {
            1 => "status IN (?)",
            _ => "status IN (?, ?)",
        };
        let binds: Vec<Bind> = f.status.iter().take(2).cloned().map(Bind::Text).collect();
        out.push(Cond::new(sql, binds));
    }
    for (k, v) in &f.metadata {
        let sql = if vaults {
            "EXISTS (SELECT 1 FROM json_each(vaults.metadata) AS m \
             WHERE m.key = ? AND m.type = 'text' AND m.value = ?)"
        } else {
            "EXISTS (SELECT 1 FROM json_each(vault_credentials.metadata) AS m \
             WHERE m.key = ? AND m.type = 'text' AND m.value = ?)"
        };
        out.push(Cond::new(
            sql,
            [Bind::Text(k.clone()), Bind::Text(v.clone())],
        ));
    }
    out
}

#[async_trait]
impl VaultStore for SqliteStore {
    async fn put_vault(&self, v: &VaultRecord) -> Result<()> {
        self.write_all(vec![Statement::new(
            "INSERT INTO vaults (id, created_at, status, metadata, doc, project_id) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             metadata = excluded.metadata, doc = excluded.doc \
             WHERE vaults.project_id = excluded.project_id",
            vec![
                Bind::Text(v.id.clone()),
                Bind::I64(v.created_at),
                Bind::Text(v.status.clone()),
                Bind::Text(v.metadata.clone()),
                Bind::Text(v.doc.clone()),
                Bind::Text(v.project_id.clone()),
            ],
        )])
        .await
    }

    async fn get_vault(&self, project: &str, id: &str) -> Result<Option<VaultRecord>> {
        self.one(sql::one::VAULT, &[id, project], vault).await
    }

    async fn list_vaults(
        &self,
        project: &str,
        q: &PageQuery,
        f: &VaultFilter,
    ) -> Result<Page<VaultRecord>> {
        self.page(
            Listing {
                table: "vaults",
                columns: "*",
                scope: of_project(project),
                filter: conditions(f, true),
                row: vault,
            },
            q,
        )
        .await
    }

    async fn delete_vault(&self, project: &str, id: &str) -> Result<bool> {
        // Its credentials go with it (ON DELETE CASCADE).
        Ok(self
            .write1(
                "DELETE FROM vaults WHERE id = $1 AND project_id = $2",
                vec![Bind::Text(id.to_owned()), Bind::Text(project.to_owned())],
            )
            .await?
            == 1)
    }

    async fn put_credential(&self, c: &CredentialRecord) -> Result<()> {
        self.write_all(vec![Statement::new(
            "INSERT INTO vault_credentials \
             (id, vault_id, created_at, status, metadata, doc, project_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             metadata = excluded.metadata, doc = excluded.doc \
             WHERE vault_credentials.project_id = excluded.project_id",
            vec![
                Bind::Text(c.id.clone()),
                Bind::Text(c.vault_id.clone()),
                Bind::I64(c.created_at),
                Bind::Text(c.status.clone()),
                Bind::Text(c.metadata.clone()),
                Bind::Text(c.doc.clone()),
                Bind::Text(c.project_id.clone()),
            ],
        )])
        .await
    }

    async fn get_credential(
        &self,
        project: &str,
        vault_id: &str,
        id: &str,
    ) -> Result<Option<CredentialRecord>> {
        self.one(sql::one::CREDENTIAL, &[vault_id, id, project], credential)
            .await
    }

    async fn list_credentials(
        &self,
        project: &str,
        vault_id: &str,
        q: &PageQuery,
        f: &VaultFilter,
    ) -> Result<Page<CredentialRecord>> {
        self.page(
            Listing {
                table: "vault_credentials",
                columns: "*",
                scope: vec![Cond::new(
                    "vault_id = ? AND project_id = ?",
                    [
                        Bind::Text(vault_id.to_owned()),
                        Bind::Text(project.to_owned()),
                    ],
                )],
                filter: conditions(f, false),
                row: credential,
            },
            q,
        )
        .await
    }

    async fn credentials_of(
        &self,
        project: &str,
        vault_ids: &[String],
    ) -> Result<Vec<CredentialRecord>> {
        // One query per Vault keeps the SQL fixed; a Session attaches few Vaults.
        let mut out = Vec::new();
        for id in vault_ids {
            let rows = sqlx::query(
                "SELECT * FROM vault_credentials WHERE vault_id = $1 AND project_id = $2 \
                 AND status = 'active' ORDER BY seq",
            )
            .bind(id)
            .bind(project)
            .fetch_all(&self.pool)
            .await?;
            out.extend(rows.iter().map(credential));
        }
        Ok(out)
    }

    async fn delete_credential(&self, project: &str, vault_id: &str, id: &str) -> Result<bool> {
        Ok(self
            .write1(
                "DELETE FROM vault_credentials WHERE vault_id = $1 AND id = $2 AND project_id = $3",
                vec![
                    Bind::Text(vault_id.to_owned()),
                    Bind::Text(id.to_owned()),
                    Bind::Text(project.to_owned()),
                ],
            )
            .await?
            == 1)
    }
}
