//! The embedded SQLite engine.
//!
//! One file under the data directory, WAL journal, `synchronous=NORMAL` (durable across process
//! crashes; a power loss may drop the last commits), foreign keys on. Migrations are embedded in
//! the binary and run at open.

use std::path::Path;
use std::str::FromStr;

use async_trait::async_trait;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{Row, SqlitePool};

use crate::writer::{Bind, Statement, Writer};
use crate::{AgentRecord, ApiKeyRecord, Order, Page, PageQuery, Result, Store, StoreError};

/// Reads go through a small pool; writes through the group-commit [`Writer`], because SQLite
/// has a single writer and concurrent writers would only queue on its lock.
#[derive(Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    writer: Writer,
}

impl SqliteStore {
    /// Opens (creating if needed) the database file and runs migrations.
    pub async fn open(path: &Path) -> Result<Self> {
        let opts = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true);
        let mut conn = crate::writer::connect(&opts).await?;
        sqlx::migrate!("migrations/sqlite").run(&mut conn).await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        Ok(SqliteStore {
            pool,
            writer: Writer::spawn(conn),
        })
    }

    /// Runs one statement through the writer; its affected row count.
    async fn write1(&self, sql: &'static str, binds: Vec<Bind>) -> Result<u64> {
        Ok(self.writer.write(vec![Statement::new(sql, binds)]).await?[0])
    }
}

fn api_key(row: &SqliteRow) -> ApiKeyRecord {
    ApiKeyRecord {
        id: row.get("id"),
        digest: row.get("digest"),
        hint: row.get("hint"),
        created_at: row.get("created_at"),
        revoked_at: row.get("revoked_at"),
    }
}

fn agent(row: &SqliteRow) -> AgentRecord {
    AgentRecord {
        id: row.get("id"),
        created_at: row.get("created_at"),
        updated_at: row.get("updated_at"),
        config: row.get("config"),
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn insert_api_key(&self, k: &ApiKeyRecord) -> Result<()> {
        self.write1(
            "INSERT INTO api_keys (id, digest, hint, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5)",
            vec![
                Bind::Text(k.id.clone()),
                Bind::Text(k.digest.clone()),
                Bind::Text(k.hint.clone()),
                Bind::I64(k.created_at),
                Bind::OptI64(k.revoked_at),
            ],
        )
        .await?;
        Ok(())
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>> {
        let rows = sqlx::query("SELECT * FROM api_keys ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(api_key).collect())
    }

    async fn revoke_api_key(&self, id: &str, at: i64) -> Result<bool> {
        let n = self
            .write1(
                "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
                vec![Bind::I64(at), Bind::Text(id.to_owned())],
            )
            .await?;
        Ok(n == 1)
    }

    async fn active_api_key(&self, digest: &str) -> Result<Option<ApiKeyRecord>> {
        let row = sqlx::query("SELECT * FROM api_keys WHERE digest = $1 AND revoked_at IS NULL")
            .bind(digest)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(api_key))
    }

    async fn count_api_keys(&self) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM api_keys")
            .fetch_one(&self.pool)
            .await?
            .get("n"))
    }

    async fn insert_agent(&self, a: &AgentRecord) -> Result<()> {
        self.write1(
            "INSERT INTO agents (id, created_at, updated_at, config) VALUES ($1, $2, $3, $4)",
            vec![
                Bind::Text(a.id.clone()),
                Bind::I64(a.created_at),
                Bind::I64(a.updated_at),
                Bind::Text(a.config.clone()),
            ],
        )
        .await?;
        Ok(())
    }

    async fn get_agent(&self, id: &str) -> Result<Option<AgentRecord>> {
        let row =
            sqlx::query("SELECT id, created_at, updated_at, config FROM agents WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.as_ref().map(agent))
    }

    async fn update_agent(&self, a: &AgentRecord) -> Result<bool> {
        let n = self
            .write1(
                "UPDATE agents SET config = $1, updated_at = $2 WHERE id = $3",
                vec![
                    Bind::Text(a.config.clone()),
                    Bind::I64(a.updated_at),
                    Bind::Text(a.id.clone()),
                ],
            )
            .await?;
        Ok(n == 1)
    }

    async fn delete_agent(&self, id: &str) -> Result<bool> {
        Ok(self
            .write1(
                "DELETE FROM agents WHERE id = $1",
                vec![Bind::Text(id.to_owned())],
            )
            .await?
            == 1)
    }

    async fn list_agents(&self, q: &PageQuery) -> Result<Page<AgentRecord>> {
        // The cursor row's sequence bounds the page; an unknown cursor is the caller's error.
        let bound: Option<i64> = match &q.after {
            Some(id) => Some(
                sqlx::query("SELECT seq FROM agents WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?
                    .ok_or(StoreError::UnknownCursor)?
                    .get("seq"),
            ),
            None => None,
        };
        let sql = match q.order {
            Order::Asc => {
                "SELECT id, created_at, updated_at, config FROM agents WHERE seq > $1 ORDER BY seq ASC LIMIT $2"
            }
            Order::Desc => {
                "SELECT id, created_at, updated_at, config FROM agents WHERE seq < $1 ORDER BY seq DESC LIMIT $2"
            }
        };
        let bound = bound.unwrap_or(match q.order {
            Order::Asc => i64::MIN,
            Order::Desc => i64::MAX,
        });
        let rows = sqlx::query(sql)
            .bind(bound)
            .bind(i64::from(q.limit) + 1)
            .fetch_all(&self.pool)
            .await?;
        let mut data: Vec<AgentRecord> = rows.iter().map(agent).collect();
        let has_more = data.len() > q.limit as usize;
        data.truncate(q.limit as usize);
        Ok(Page { data, has_more })
    }
}
