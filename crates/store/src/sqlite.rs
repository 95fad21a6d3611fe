//! The embedded SQLite engine.
//!
//! One file under the data directory, WAL journal, `synchronous=NORMAL` (durable across process
//! crashes; a power loss may drop the last commits), foreign keys on. Migrations are embedded in
//! the binary and run at open.

use std::path::Path;
use std::str::FromStr;

use async_trait::async_trait;
use sqlx::sqlite::{
    SqliteArguments, SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, Row, SqlitePool};

mod key_check;
mod subagents;
mod vaults;

use crate::fixed;
use crate::rows::{
    agent, api_key, call, deletion, environment, idempotency, item, project, session, trace, turn,
};
use crate::sql::{self, Cond, Listing, Sql, of_project, of_session, put_environment};
use crate::writer::{Bind, Statement, Writer};
use crate::{
    AgentRecord, ApiKeyRecord, CallRecord, DeletionRecord, EnvironmentFilter, EnvironmentRecord,
    IdempotencyRecord, ItemRecord, Page, PageQuery, ProjectRecord, Result, SessionFilter,
    SessionGauges, SessionRecord, SessionWrite, Store, StoreError, TurnRecord,
};

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
            .foreign_keys(true)
            // A deleted row's bytes are overwritten, not left in free space (every connection:
            // the pool's and the writer's are opened from these options).
            .pragma("secure_delete", "ON");
        let mut conn = crate::writer::connect(&opts).await?;
        sqlx::migrate!("migrations/sqlite").run(&mut conn).await?;
        sqlx::Connection::close(conn).await?;
        let writer = Writer::open(path)?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        Ok(SqliteStore { pool, writer })
    }

    /// Copies the WAL into the database and truncates it to zero bytes, so the frames that
    /// held deleted rows are gone from the `-wal` file too (`secure_delete` already zeroed them
    /// in the database pages). A checkpoint that a reader holds up stays incomplete until the
    /// next one: logged, never an error of the delete.
    async fn checkpoint(&self) {
        match self.writer.checkpoint_truncate().await {
            Ok(true) => {}
            Ok(false) => tracing::warn!("WAL checkpoint after a delete was busy"),
            Err(e) => tracing::warn!(error = %e, "WAL checkpoint after a delete failed"),
        }
    }

    /// Runs one statement through the writer; its affected row count (a unique-key violation
    /// is a [`StoreError::Conflict`]).
    async fn write1(&self, sql: &'static str, binds: Vec<Bind>) -> Result<u64> {
        Ok(self.writer.write(vec![Statement::new(sql, binds)]).await?[0])
    }

    /// Commits statements in one transaction; a unique-key violation is a
    /// [`StoreError::Conflict`] (the writer's mapping).
    async fn write_all(&self, statements: Vec<Statement>) -> Result<()> {
        self.writer.write(statements).await.map(|_| ())
    }

    /// The row of one of the [`sql::one`] queries ([`fixed::one`]).
    async fn one<T>(
        &self,
        sql: &'static str,
        keys: &[&str],
        read: fn(&SqliteRow) -> T,
    ) -> Result<Option<T>> {
        fixed::one(&self.pool, sql, keys, read).await
    }

    /// The rows of one of the [`sql::all`] queries ([`fixed::all`]).
    async fn all<T>(
        &self,
        sql: &'static str,
        keys: &[&str],
        read: fn(&SqliteRow) -> T,
    ) -> Result<Vec<T>> {
        fixed::all(&self.pool, sql, keys, read).await
    }

    async fn page<T>(&self, l: Listing<SqliteRow, T>, q: &PageQuery) -> Result<Page<T>> {
        let after_seq = match &q.after {
            Some(after) => Some(
                query(&l.cursor(after))?
                    .fetch_optional(&self.pool)
                    .await?
                    .ok_or(StoreError::UnknownCursor)?
                    .get("seq"),
            ),
            None => None,
        };
        let rows = query(&l.rows(q, after_seq))?.fetch_all(&self.pool).await?;
        Ok(l.page(&rows, q))
    }
}

/// An assembled query, bound and ready to run.
fn query(sql: &Sql) -> Result<sqlx::query::Query<'_, sqlx::Sqlite, SqliteArguments>> {
    Ok(sqlx::query_with(
        AssertSqlSafe(sql.text.as_str()),
        crate::writer::arguments(&sql.binds)?,
    ))
}

#[async_trait]
impl Store for SqliteStore {
    async fn insert_project(&self, p: &ProjectRecord) -> Result<()> {
        self.write1(
            "INSERT INTO projects (id, name, created_at, archived_at) VALUES ($1, $2, $3, $4)",
            vec![
                Bind::Text(p.id.clone()),
                Bind::Text(p.name.clone()),
                Bind::I64(p.created_at),
                Bind::OptI64(p.archived_at),
            ],
        )
        .await?;
        Ok(())
    }

    async fn list_projects(&self) -> Result<Vec<ProjectRecord>> {
        self.all(sql::all::PROJECTS, &[], project).await
    }

    async fn get_project(&self, id: &str) -> Result<Option<ProjectRecord>> {
        self.one(sql::one::PROJECT, &[id], project).await
    }

    async fn archive_project(&self, id: &str, at: i64) -> Result<bool> {
        let n = self
            .write1(
                "UPDATE projects SET archived_at = $1 WHERE id = $2 AND archived_at IS NULL",
                vec![Bind::I64(at), Bind::Text(id.to_owned())],
            )
            .await?;
        Ok(n == 1)
    }

    async fn insert_api_key(&self, k: &ApiKeyRecord) -> Result<()> {
        self.write1(
            "INSERT INTO api_keys (id, digest, hint, created_at, revoked_at, project_id) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            vec![
                Bind::Text(k.id.clone()),
                Bind::Text(k.digest.clone()),
                Bind::Text(k.hint.clone()),
                Bind::I64(k.created_at),
                Bind::OptI64(k.revoked_at),
                Bind::Text(k.project_id.clone()),
            ],
        )
        .await?;
        Ok(())
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>> {
        self.all(sql::all::API_KEYS, &[], api_key).await
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
        self.one(sql::one::ACTIVE_API_KEY, &[digest], api_key).await
    }

    async fn count_api_keys(&self) -> Result<i64> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM api_keys")
            .fetch_one(&self.pool)
            .await?
            .get("n"))
    }

    async fn probe_write(&self, now: i64) -> Result<()> {
        self.write1(
            "INSERT INTO health (id, probed_at) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at",
            vec![Bind::I64(now)],
        )
        .await
        .map(drop)
    }

    async fn insert_agent(&self, a: &AgentRecord) -> Result<()> {
        self.write1(
            "INSERT INTO agents (id, created_at, updated_at, config, project_id) \
             VALUES ($1, $2, $3, $4, $5)",
            vec![
                Bind::Text(a.id.clone()),
                Bind::I64(a.created_at),
                Bind::I64(a.updated_at),
                Bind::Text(a.config.clone()),
                Bind::Text(a.project_id.clone()),
            ],
        )
        .await?;
        Ok(())
    }

    async fn get_agent(&self, project: &str, id: &str) -> Result<Option<AgentRecord>> {
        self.one(sql::one::AGENT, &[id, project], agent).await
    }

    async fn update_agent(&self, a: &AgentRecord) -> Result<bool> {
        let n = self
            .write1(
                "UPDATE agents SET config = $1, updated_at = $2 WHERE id = $3 AND project_id = $4",
                vec![
                    Bind::Text(a.config.clone()),
                    Bind::I64(a.updated_at),
                    Bind::Text(a.id.clone()),
                    Bind::Text(a.project_id.clone()),
                ],
            )
            .await?;
        Ok(n == 1)
    }

    async fn delete_agent(&self, project: &str, id: &str) -> Result<bool> {
        Ok(self
            .write1(
                "DELETE FROM agents WHERE id = $1 AND project_id = $2",
                vec![Bind::Text(id.to_owned()), Bind::Text(project.to_owned())],
            )
            .await?
            == 1)
    }

    async fn list_agents(&self, project: &str, q: &PageQuery) -> Result<Page<AgentRecord>> {
        self.page(
            Listing {
                table: "agents",
                columns: "id, project_id, created_at, updated_at, config",
                scope: of_project(project),
                filter: vec![],
                row: agent,
            },
            q,
        )
        .await
    }

    async fn write_session(&self, mut w: SessionWrite) -> Result<()> {
        // One process: no replica reads event rows, so none are kept (`keeps_events`).
        w.events.clear();
        if w.is_empty() {
            return Ok(());
        }
        self.write_all(sql::session_write(w)).await
    }

    async fn get_session(&self, project: &str, id: &str) -> Result<Option<SessionRecord>> {
        self.one(sql::one::SESSION, &[id, project], session).await
    }

    async fn list_sessions(
        &self,
        project: &str,
        q: &PageQuery,
        f: &SessionFilter,
    ) -> Result<Page<SessionRecord>> {
        let mut filter = Vec::with_capacity(1 + f.metadata.len());
        if let Some(agent_id) = &f.agent_id {
            filter.push(Cond::new("agent_id = ?", [Bind::Text(agent_id.clone())]));
        }
        // Metadata pairs are matched against the stored JSON object at read time: the key is a
        // bound value compared with `json_each`'s (unescaped) key, so keys holding `"`, `.` or
        // `[` need no JSON-path quoting, and writes keep no side table in step. Filtered lists
        // scan Sessions in `seq` order until the page fills, which suits an occasional admin
        // query. A PostgreSQL engine would say `jsonb_each_text(metadata::jsonb)` here.
        for (k, v) in &f.metadata {
            filter.push(Cond::new(
                "EXISTS (SELECT 1 FROM json_each(sessions.metadata) AS m \
                 WHERE m.key = ? AND m.type = 'text' AND m.value = ?)",
                [Bind::Text(k.clone()), Bind::Text(v.clone())],
            ));
        }
        self.page(
            Listing {
                table: "sessions",
                columns: sql::SESSION_COLUMNS,
                scope: of_project(project),
                filter,
                row: session,
            },
            q,
        )
        .await
    }

    async fn delete_session(
        &self,
        project: &str,
        d: &DeletionRecord,
        own_environment: Option<&str>,
    ) -> Result<bool> {
        let id = || Bind::Text(d.session_id.clone());
        let project = || Bind::Text(project.to_owned());
        // The deletion record and the Environment go only if the Session is there; then the
        // Session, with its Turns, Items, calls and idempotency records (ON DELETE CASCADE). A
        // create key outlives its Session (a retry after the delete is a conflict) but no
        // longer names it.
        let statements = vec![
            Statement::new(
                "INSERT OR REPLACE INTO session_deletions \
                 (session_id, environment_id, workspace_id, workspace_runtime, created_at, \
                 project_id) \
                 SELECT $1, $2, $3, $4, $5, $6 \
                 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND project_id = $6)",
                vec![
                    id(),
                    Bind::OptText(d.environment_id.clone()),
                    Bind::OptText(d.workspace_id.clone()),
                    Bind::OptText(d.workspace_runtime.clone()),
                    Bind::I64(d.created_at),
                    project(),
                ],
            ),
            Statement::new(
                "DELETE FROM environments WHERE id = $1 AND project_id = $3 \
                 AND EXISTS (SELECT 1 FROM sessions WHERE id = $2 AND project_id = $3)",
                vec![
                    Bind::OptText(own_environment.map(str::to_owned)),
                    id(),
                    project(),
                ],
            ),
            Statement::new(
                "UPDATE session_create_keys SET session_id = '' \
                 WHERE session_id = $1 AND project_id = $2",
                vec![id(), project()],
            ),
            Statement::new(
                "DELETE FROM sessions WHERE id = $1 AND project_id = $2",
                vec![id(), project()],
            ),
        ];
        let counts = self.writer.write(statements).await?;
        let deleted = counts.last().is_some_and(|n| *n == 1);
        if deleted {
            self.checkpoint().await;
        }
        Ok(deleted)
    }

    async fn pending_deletions(&self) -> Result<Vec<DeletionRecord>> {
        self.all(sql::all::DELETIONS, &[], deletion).await
    }

    async fn finish_deletion(&self, session_id: &str) -> Result<()> {
        let removed = self
            .write1(
                "DELETE FROM session_deletions WHERE session_id = $1",
                vec![Bind::Text(session_id.to_owned())],
            )
            .await?;
        if removed > 0 {
            self.checkpoint().await;
        }
        Ok(())
    }

    async fn unsettled_sessions(&self) -> Result<Vec<SessionRecord>> {
        self.all(sql::all::UNSETTLED_SESSIONS, &[], session).await
    }

    async fn session_gauges(&self) -> Result<SessionGauges> {
        let rows = sqlx::query(
            "SELECT json_extract(doc, '$.status') AS status, COUNT(*) AS n, \
             COALESCE(SUM(json_array_length(doc, '$.required_actions')), 0) AS actions \
             FROM sessions GROUP BY 1",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(SessionGauges::from_rows(rows.iter().map(|row| {
            (row.get("status"), row.get("n"), row.get("actions"))
        })))
    }

    async fn get_turn(
        &self,
        project: &str,
        session_id: &str,
        turn_id: &str,
    ) -> Result<Option<TurnRecord>> {
        self.one(sql::one::TURN, &[session_id, turn_id, project], turn)
            .await
    }

    async fn list_turns(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<TurnRecord>> {
        self.page(
            Listing {
                table: "turns",
                columns: "*",
                scope: of_session(project, session_id),
                filter: vec![],
                row: turn,
            },
            q,
        )
        .await
    }

    async fn append_trace(&self, session_id: &str, turn_id: &str, otlp: &str) -> Result<()> {
        self.write_all(vec![crate::traces::append(session_id, turn_id, otlp)])
            .await
    }

    async fn list_traces(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<crate::TraceRecord>> {
        self.page(crate::traces::listing(project, session_id, trace), q)
            .await
    }

    async fn list_items(
        &self,
        project: &str,
        session_id: &str,
        turn_id: Option<&str>,
        q: &PageQuery,
    ) -> Result<Page<ItemRecord>> {
        // The cursor may name any Item of the Session: within one Session, Items of every Turn
        // share one order, so it marks a position even in a list of another Turn's Items.
        let filter = turn_id
            .map(|t| Cond::new("turn_id = ?", [Bind::Text(t.to_owned())]))
            .into_iter()
            .collect();
        self.page(
            Listing {
                table: "items",
                columns: "*",
                scope: of_session(project, session_id),
                filter,
                row: item,
            },
            q,
        )
        .await
    }

    async fn turn_items(
        &self,
        project: &str,
        session_id: &str,
        turn_id: &str,
    ) -> Result<Vec<ItemRecord>> {
        self.all(sql::all::TURN_ITEMS, &[session_id, turn_id, project], item)
            .await
    }

    async fn get_call(
        &self,
        project: &str,
        session_id: &str,
        call_id: &str,
    ) -> Result<Option<CallRecord>> {
        self.one(sql::one::CALL, &[session_id, call_id, project], call)
            .await
    }

    async fn get_idempotency(
        &self,
        project: &str,
        session_id: &str,
        key: &str,
    ) -> Result<Option<IdempotencyRecord>> {
        self.one(
            sql::one::IDEMPOTENCY,
            &[session_id, key, project],
            idempotency,
        )
        .await
    }

    async fn get_create_key(&self, project: &str, key: &str) -> Result<Option<IdempotencyRecord>> {
        self.one(sql::one::CREATE_KEY, &[key, project], idempotency)
            .await
    }

    async fn put_environment(&self, e: &EnvironmentRecord) -> Result<()> {
        self.write_all(vec![put_environment(e)]).await
    }

    async fn get_environment(&self, project: &str, id: &str) -> Result<Option<EnvironmentRecord>> {
        self.one(sql::one::ENVIRONMENT, &[id, project], environment)
            .await
    }

    async fn list_environments(
        &self,
        project: &str,
        q: &PageQuery,
        f: &EnvironmentFilter,
    ) -> Result<Page<EnvironmentRecord>> {
        let filter = f
            .kind
            .iter()
            .map(|k| Cond::new("kind = ?", [Bind::Text(k.clone())]))
            .collect();
        self.page(
            Listing {
                table: "environments",
                columns: "*",
                scope: of_project(project),
                filter,
                row: environment,
            },
            q,
        )
        .await
    }

    async fn delete_environment(&self, project: &str, id: &str) -> Result<bool> {
        Ok(self
            .write1(
                "DELETE FROM environments WHERE id = $1 AND project_id = $2",
                vec![Bind::Text(id.to_owned()), Bind::Text(project.to_owned())],
            )
            .await?
            == 1)
    }

    async fn environment_by_enrollment(&self, digest: &str) -> Result<Option<EnvironmentRecord>> {
        self.one(sql::one::ENVIRONMENT_BY_ENROLLMENT, &[digest], environment)
            .await
    }

    async fn environment_by_credential(&self, digest: &str) -> Result<Option<EnvironmentRecord>> {
        self.one(sql::one::ENVIRONMENT_BY_CREDENTIAL, &[digest], environment)
            .await
    }

    async fn exchange_enrollment(
        &self,
        enrollment_digest: &str,
        credential_digest: &str,
    ) -> Result<Option<String>> {
        let Some(environment) = self.environment_by_enrollment(enrollment_digest).await? else {
            return Ok(None);
        };
        // Conditional on the token still being current: a concurrent exchange or a new mint
        // between the read and this write leaves no row to update.
        let updated = self
            .write1(
                "UPDATE environments SET credential_digest = $1, enrollment_digest = NULL \
                 WHERE id = $2 AND enrollment_digest = $3",
                vec![
                    Bind::Text(credential_digest.to_owned()),
                    Bind::Text(environment.id.clone()),
                    Bind::Text(enrollment_digest.to_owned()),
                ],
            )
            .await?;
        Ok((updated == 1).then_some(environment.id))
    }

    async fn set_enrollment_digest(
        &self,
        project: &str,
        id: &str,
        enrollment_digest: &str,
    ) -> Result<bool> {
        let updated = self
            .write1(
                "UPDATE environments SET enrollment_digest = $1 WHERE id = $2 AND project_id = $3",
                vec![
                    Bind::Text(enrollment_digest.to_owned()),
                    Bind::Text(id.to_owned()),
                    Bind::Text(project.to_owned()),
                ],
            )
            .await?;
        Ok(updated == 1)
    }
}
