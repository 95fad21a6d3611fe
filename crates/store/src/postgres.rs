//! The PostgreSQL engine: the same [`Store`] contract as [`crate::SqliteStore`], for
//! deployments that outgrow one machine.
//!
//! Every write is one transaction on a pooled connection, at READ COMMITTED. Where SQLite's
//! single writer task serialises writes, PostgreSQL gives the same outcomes row by row: a
//! second insert of a unique key waits for the first transaction and then fails
//! ([`StoreError::Conflict`]); a conditional UPDATE re-checks its WHERE against the row another
//! transaction just committed (so of two enrollment exchanges one wins); a Session delete locks
//! its row first. A transaction that deadlocks or fails to serialise is retried.
//!
//! Deleted content: PostgreSQL keeps a deleted row's bytes in its page until VACUUM reclaims
//! it, so a Session delete vacuums the tables it touched (the closest thing to SQLite's
//! `secure_delete` + WAL truncation). The write-ahead log (and any WAL archive or replica)
//! still holds the bytes until its segments are overwritten; deployments that must not keep
//! them put the database on encrypted storage.

use async_trait::async_trait;
use sqlx::postgres::{PgPoolOptions, PgRow};
use sqlx::{PgPool, Row};

mod claims;
pub mod events;
mod key_check;
mod query;
mod subagents;
mod vaults;

use crate::fixed;
use crate::rows::{
    agent, api_key, call, deletion, environment, idempotency, item, project, session, trace, turn,
};
use crate::sql::{self, put_environment};
use crate::writer::{Bind, Statement};
use crate::{
    AgentRecord, ApiKeyRecord, CallRecord, DeletionRecord, EnvironmentFilter, EnvironmentRecord,
    EventRecord, IdempotencyRecord, ItemRecord, Notifications, Page, PageQuery, ProjectRecord,
    Result, SessionFilter, SessionGauges, SessionRecord, SessionWrite, Store, StoreError,
    TurnRecord,
};
use query::{Cond, Listing, of_project, of_session, page};

/// How often a transaction that deadlocked or failed to serialise is run again.
const ATTEMPTS: usize = 5;

/// The tables a Session delete leaves dead rows in, vacuumed after it.
const VACUUM_SESSION_TABLES: &str = "VACUUM sessions, turns, items, calls, idempotency, \
     subagents, subagent_turns, subagent_items, environments, session_create_keys, \
     session_deletions, session_events, session_traces";

#[derive(Clone)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    /// Connects to `url` (`postgres://…`) and runs the PostgreSQL migrations.
    pub async fn open(url: &str) -> Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        Ok(PgStore { pool })
    }

    /// Runs `statements` in one transaction; each statement's affected row count. Retried when
    /// PostgreSQL aborts it for a deadlock or a serialisation failure (nothing was committed).
    async fn transact(&self, statements: &[Statement]) -> Result<Vec<u64>> {
        let mut attempt = 1;
        loop {
            match self.transact_once(statements).await {
                Err(sqlx::Error::Database(e))
                    if attempt < ATTEMPTS
                        && matches!(e.code().as_deref(), Some("40001" | "40P01")) =>
                {
                    attempt += 1;
                }
                outcome => return Ok(outcome?),
            }
        }
    }

    async fn transact_once(
        &self,
        statements: &[Statement],
    ) -> std::result::Result<Vec<u64>, sqlx::Error> {
        // One statement is its own transaction: no BEGIN and COMMIT round trips.
        if let [s] = statements
            && s.updates.is_empty()
        {
            let q = sqlx::query_with(s.sql, query::arguments(&s.binds)?);
            return Ok(vec![q.execute(&self.pool).await?.rows_affected()]);
        }
        let mut tx = self.pool.begin().await?;
        let mut counts = Vec::with_capacity(statements.len());
        for s in statements {
            counts.push(execute(&mut tx, s).await?);
        }
        tx.commit().await?;
        Ok(counts)
    }

    /// Runs `statements` in one transaction that first locks the Session's claim row and checks
    /// it is still `fence`'s; a lost or stale claim rolls everything back
    /// ([`StoreError::Fenced`]). The lock keeps a handover or takeover from committing between
    /// the check and the write. Retried like [`Self::transact`].
    async fn write_fenced(&self, fence: &crate::Fence, statements: Vec<Statement>) -> Result<()> {
        let mut attempt = 1;
        loop {
            let outcome = self.write_fenced_once(fence, &statements).await;
            match outcome {
                Err(StoreError::Database(sqlx::Error::Database(e)))
                    if attempt < ATTEMPTS
                        && matches!(e.code().as_deref(), Some("40001" | "40P01")) =>
                {
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    async fn write_fenced_once(
        &self,
        fence: &crate::Fence,
        statements: &[Statement],
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        let held = sqlx::query(
            "SELECT 1 FROM session_claims WHERE session_id = $1 AND replica_id = $2 \
             AND epoch = $3 FOR UPDATE",
        )
        .bind(&fence.session_id)
        .bind(&fence.replica_id)
        .bind(fence.epoch)
        .fetch_optional(&mut *tx)
        .await?
        .is_some();
        if !held {
            tx.rollback().await?;
            return Err(claims::fenced(fence));
        }
        for s in statements {
            execute(&mut tx, s).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// One statement; its affected row count.
    async fn write1(&self, sql: &'static str, binds: Vec<Bind>) -> Result<u64> {
        Ok(self.transact(&[Statement::new(sql, binds)]).await?[0])
    }

    /// A key or Project change: one statement, committed with the keys epoch's bump and its
    /// `NOTIFY`, so every replica drops its cached keys at once. Its affected row count.
    async fn keys_change(&self, sql: &'static str, binds: Vec<Bind>) -> Result<u64> {
        let statements = [Statement::new(sql, binds), events::bump_keys_epoch()];
        Ok(self.transact(&statements).await?[0])
    }

    /// Commits statements in one transaction; a unique-key violation is a
    /// [`StoreError::Conflict`].
    async fn write_all(&self, statements: Vec<Statement>) -> Result<Vec<u64>> {
        conflict(self.transact(&statements).await)
    }

    /// Reclaims the dead rows a Session delete left, so their bytes leave the table files. A
    /// failure is logged, never an error of the delete: the rows are already gone for readers.
    async fn vacuum(&self) {
        if let Err(e) = sqlx::raw_sql(VACUUM_SESSION_TABLES)
            .execute(&self.pool)
            .await
        {
            tracing::warn!(error = %e, "VACUUM after a delete failed");
        }
    }

    /// The row of one of the [`sql::one`] queries ([`fixed::one`]).
    async fn one<T>(
        &self,
        sql: &'static str,
        keys: &[&str],
        read: fn(&PgRow) -> T,
    ) -> Result<Option<T>> {
        fixed::one(&self.pool, sql, keys, read).await
    }

    /// The rows of one of the [`sql::all`] queries ([`fixed::all`]).
    async fn all<T>(
        &self,
        sql: &'static str,
        keys: &[&str],
        read: fn(&PgRow) -> T,
    ) -> Result<Vec<T>> {
        fixed::all(&self.pool, sql, keys, read).await
    }
}

/// Runs one statement of a transaction (its narrow updates first, when it has them,
/// [`Statement::update_first`]); its affected row count.
async fn execute(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    s: &Statement,
) -> std::result::Result<u64, sqlx::Error> {
    for update in s.updates {
        let updated = sqlx::query_with(*update, query::arguments(&s.binds)?)
            .execute(&mut **tx)
            .await?
            .rows_affected();
        if updated > 0 {
            return Ok(updated);
        }
    }
    let q = sqlx::query_with(s.sql, query::arguments(&s.binds)?);
    Ok(q.execute(&mut **tx).await?.rows_affected())
}

/// A unique-key violation as a [`StoreError::Conflict`].
fn conflict<T>(outcome: Result<T>) -> Result<T> {
    match outcome {
        Err(StoreError::Database(sqlx::Error::Database(e))) if e.is_unique_violation() => {
            Err(StoreError::Conflict(e.message().to_owned()))
        }
        other => other,
    }
}

/// An ID and its Project, bound as `$1` and `$2`.
fn two(id: &str, project: &str) -> Vec<Bind> {
    vec![Bind::Text(id.to_owned()), Bind::Text(project.to_owned())]
}

/// A metadata pair matched against a stored JSON object, as the SQLite engine's `json_each`
/// does: the key compared unescaped, the value only when it is a string. `json` (not `jsonb`)
/// reads the text as written.
fn metadata_pair(sql: &'static str, k: &str, v: &str) -> Cond {
    Cond::new(sql, [Bind::Text(k.to_owned()), Bind::Text(v.to_owned())])
}

#[async_trait]
impl Store for PgStore {
    async fn insert_project(&self, p: &ProjectRecord) -> Result<()> {
        self.keys_change(
            "INSERT INTO projects (id, name, created_at, archived_at) VALUES ($1, $2, $3, $4)",
            vec![
                Bind::Text(p.id.clone()),
                Bind::Text(p.name.clone()),
                Bind::I64(p.created_at),
                Bind::OptI64(p.archived_at),
            ],
        )
        .await
        .map(drop)
    }

    async fn list_projects(&self) -> Result<Vec<ProjectRecord>> {
        self.all(sql::all::PROJECTS, &[], project).await
    }

    async fn get_project(&self, id: &str) -> Result<Option<ProjectRecord>> {
        self.one(sql::one::PROJECT, &[id], project).await
    }

    async fn archive_project(&self, id: &str, at: i64) -> Result<bool> {
        let n = self
            .keys_change(
                "UPDATE projects SET archived_at = $1 WHERE id = $2 AND archived_at IS NULL",
                vec![Bind::I64(at), Bind::Text(id.to_owned())],
            )
            .await?;
        Ok(n == 1)
    }

    async fn insert_api_key(&self, k: &ApiKeyRecord) -> Result<()> {
        self.keys_change(
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
        .await
        .map(drop)
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>> {
        self.all(sql::all::API_KEYS, &[], api_key).await
    }

    async fn revoke_api_key(&self, id: &str, at: i64) -> Result<bool> {
        let n = self
            .keys_change(
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
        .await
        .map(drop)
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
        let sql = "DELETE FROM agents WHERE id = $1 AND project_id = $2";
        Ok(self.write1(sql, two(id, project)).await? == 1)
    }

    async fn list_agents(&self, project: &str, q: &PageQuery) -> Result<Page<AgentRecord>> {
        let l = Listing {
            table: "agents",
            columns: "*",
            scope: of_project(project),
            filter: vec![],
            row: agent,
        };
        page(&self.pool, l, q).await
    }

    fn claims(&self) -> Option<std::sync::Arc<dyn crate::ClaimStore>> {
        Some(std::sync::Arc::new(self.clone()))
    }

    async fn write_session(&self, mut w: SessionWrite) -> Result<()> {
        if w.is_empty() {
            return Ok(());
        }
        let events = std::mem::take(&mut w.events);
        let fence = w.fence.take();
        let mut statements = sql::session_write(w);
        statements.extend(events::statements(events));
        match fence {
            None => self.write_all(statements).await.map(drop),
            Some(fence) => conflict(self.write_fenced(&fence, statements).await),
        }
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
        for (k, v) in &f.metadata {
            filter.push(metadata_pair(
                "EXISTS (SELECT 1 FROM json_each(sessions.metadata::json) AS m \
                 WHERE m.key = ? AND json_typeof(m.value) = 'string' AND m.value #>> '{}' = ?)",
                k,
                v,
            ));
        }
        let l = Listing {
            table: "sessions",
            columns: sql::SESSION_COLUMNS,
            scope: of_project(project),
            filter,
            row: session,
        };
        page(&self.pool, l, q).await
    }

    async fn delete_session(
        &self,
        project: &str,
        d: &DeletionRecord,
        own_environment: Option<&str>,
    ) -> Result<bool> {
        let id = || Bind::Text(d.session_id.clone());
        let project = || Bind::Text(project.to_owned());
        // The Session's row is locked first: a concurrent delete (or a write that names the
        // Session) waits, then finds no row and writes nothing. The rest runs only when the
        // lock found the Session; its Turns, Items, calls and idempotency records go with it
        // (ON DELETE CASCADE). A create key outlives its Session but no longer names it.
        let statements = [
            Statement::new(
                "SELECT 1 FROM sessions WHERE id = $1 AND project_id = $2 FOR UPDATE",
                vec![id(), project()],
            ),
            Statement::new(
                "INSERT INTO session_deletions \
                 (session_id, environment_id, workspace_id, workspace_runtime, created_at, \
                 project_id) \
                 SELECT $1, $2, $3, $4, $5, $6 \
                 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND project_id = $6) \
                 ON CONFLICT (session_id) DO UPDATE SET environment_id = excluded.environment_id, \
                 workspace_id = excluded.workspace_id, \
                 workspace_runtime = excluded.workspace_runtime, created_at = excluded.created_at, \
                 project_id = excluded.project_id",
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
            // Its event rows carry its content too; other replicas end its streams.
            Statement::new(
                "DELETE FROM session_events WHERE session_id = $1 \
                 AND EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND project_id = $2)",
                vec![id(), project()],
            ),
            Statement::new(
                "SELECT pg_notify('switchboard_events', 'deleted ' || $1) \
                 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND project_id = $2)",
                vec![id(), project()],
            ),
            Statement::new(
                "DELETE FROM sessions WHERE id = $1 AND project_id = $2",
                vec![id(), project()],
            ),
        ];
        let counts = self.transact(&statements).await?;
        let deleted = counts.last().is_some_and(|n| *n == 1);
        if deleted {
            self.vacuum().await;
        }
        Ok(deleted)
    }

    async fn pending_deletions(&self) -> Result<Vec<DeletionRecord>> {
        self.all(sql::all::DELETIONS, &[], deletion).await
    }

    async fn finish_deletion(&self, session_id: &str) -> Result<()> {
        let sql = "DELETE FROM session_deletions WHERE session_id = $1";
        if self
            .write1(sql, vec![Bind::Text(session_id.to_owned())])
            .await?
            > 0
        {
            self.vacuum().await;
        }
        Ok(())
    }

    async fn unsettled_sessions(&self) -> Result<Vec<SessionRecord>> {
        self.all(sql::all::UNSETTLED_SESSIONS, &[], session).await
    }

    async fn session_gauges(&self) -> Result<SessionGauges> {
        let rows = sqlx::query(
            "SELECT (doc::jsonb)->>'status' AS status, COUNT(*) AS n, \
             COALESCE(SUM(jsonb_array_length(COALESCE((doc::jsonb)->'required_actions', '[]'::jsonb))), 0)::BIGINT AS actions \
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
        let l = Listing {
            table: "turns",
            columns: "*",
            scope: of_session(project, session_id),
            filter: vec![],
            row: turn,
        };
        page(&self.pool, l, q).await
    }

    async fn append_trace(&self, session_id: &str, turn_id: &str, otlp: &str) -> Result<()> {
        self.write_all(vec![crate::traces::append(session_id, turn_id, otlp)])
            .await
            .map(drop)
    }

    async fn list_traces(
        &self,
        project: &str,
        session_id: &str,
        q: &PageQuery,
    ) -> Result<Page<crate::TraceRecord>> {
        page(
            &self.pool,
            crate::traces::listing(project, session_id, trace),
            q,
        )
        .await
    }

    async fn list_items(
        &self,
        project: &str,
        session_id: &str,
        turn_id: Option<&str>,
        q: &PageQuery,
    ) -> Result<Page<ItemRecord>> {
        // The cursor may name any Item of the Session (one order across its Turns).
        let filter = turn_id
            .map(|t| Cond::new("turn_id = ?", [Bind::Text(t.to_owned())]))
            .into_iter()
            .collect();
        let l = Listing {
            table: "items",
            columns: "*",
            scope: of_session(project, session_id),
            filter,
            row: item,
        };
        page(&self.pool, l, q).await
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
        self.write_all(vec![put_environment(e)]).await.map(drop)
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
        let l = Listing {
            table: "environments",
            columns: "*",
            scope: of_project(project),
            filter,
            row: environment,
        };
        page(&self.pool, l, q).await
    }

    async fn delete_environment(&self, project: &str, id: &str) -> Result<bool> {
        let sql = "DELETE FROM environments WHERE id = $1 AND project_id = $2";
        Ok(self.write1(sql, two(id, project)).await? == 1)
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
        // One conditional UPDATE: a concurrent exchange waits on the row's lock, then re-checks
        // the WHERE against the committed row and updates nothing.
        let row = sqlx::query(
            "UPDATE environments SET credential_digest = $1, enrollment_digest = NULL \
             WHERE enrollment_digest = $2 RETURNING id",
        )
        .bind(credential_digest)
        .bind(enrollment_digest)
        .fetch_optional(&self.pool)
        .await;
        let row = conflict(row.map_err(StoreError::from))?;
        Ok(row.map(|r| r.get("id")))
    }

    async fn set_enrollment_digest(
        &self,
        project: &str,
        id: &str,
        enrollment_digest: &str,
    ) -> Result<bool> {
        let n = self
            .write_all(vec![Statement::new(
                "UPDATE environments SET enrollment_digest = $1 WHERE id = $2 AND project_id = $3",
                vec![
                    Bind::Text(enrollment_digest.to_owned()),
                    Bind::Text(id.to_owned()),
                    Bind::Text(project.to_owned()),
                ],
            )])
            .await?;
        Ok(n[0] == 1)
    }

    fn keeps_events(&self) -> bool {
        true
    }

    async fn events_after(&self, session_id: &str, after: i64) -> Result<Vec<EventRecord>> {
        events::events_after(&self.pool, session_id, after).await
    }

    async fn delete_events_before(&self, before: i64) -> Result<u64> {
        events::delete_before(&self.pool, before).await
    }

    async fn keys_epoch(&self) -> Result<i64> {
        events::keys_epoch(&self.pool).await
    }

    async fn listen(&self) -> Result<Option<Box<dyn Notifications>>> {
        let listener = events::PgNotifications::open(&self.pool).await?;
        Ok(Some(Box::new(listener)))
    }
}
