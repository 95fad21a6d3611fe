//! [`ClaimStore`] on PostgreSQL: the `replicas` and `session_claims` tables
//! (`migrations/postgres/0004_replicas.sql`) and the `switchboard_claims` notification channel.

use async_trait::async_trait;
use sqlx::Row;
use sqlx::postgres::{PgListener, PgRow};
use tokio::sync::mpsc;

use super::{PgStore, session};
use crate::claims::{ClaimOutcome, ClaimStore, Fence, Orphan, Previous, ReplicaRecord};
use crate::{Result, SessionRecord, StoreError};

/// The database's clock in milliseconds: every replica reads expiry against the same clock.
macro_rules! now_ms {
    () => {
        "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
    };
}

/// The channel a handover is announced on; the payload is the Session ID.
pub const HANDOVER_CHANNEL: &str = "switchboard_claims";

fn replica(row: &PgRow) -> ReplicaRecord {
    let routes: String = row.get("routes");
    ReplicaRecord {
        id: row.get("id"),
        address: row.get("address"),
        routes: serde_routes(&routes),
    }
}

/// The routes column: a JSON array of strings, read without a JSON dependency (route names
/// hold no quotes or commas).
fn serde_routes(text: &str) -> Vec<String> {
    text.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn routes_text(routes: &[String]) -> String {
    let quoted: Vec<String> = routes.iter().map(|r| format!("\"{r}\"")).collect();
    format!("[{}]", quoted.join(","))
}

#[async_trait]
impl ClaimStore for PgStore {
    async fn heartbeat(&self, r: &ReplicaRecord, ttl_ms: i64) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(concat!(
            "INSERT INTO replicas (id, address, routes, heartbeat_at, expires_at) \
             VALUES ($1, $2, $3, ",
            now_ms!(),
            ", ",
            now_ms!(),
            " + $4) ON CONFLICT (id) DO UPDATE SET address = excluded.address, \
             routes = excluded.routes, heartbeat_at = excluded.heartbeat_at, \
             expires_at = excluded.expires_at"
        ))
        .bind(&r.id)
        .bind(&r.address)
        .bind(routes_text(&r.routes))
        .bind(ttl_ms)
        .execute(&mut *tx)
        .await?;
        sqlx::query(concat!(
            "UPDATE session_claims SET expires_at = ",
            now_ms!(),
            " + $2 WHERE replica_id = $1"
        ))
        .bind(&r.id)
        .bind(ttl_ms)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn retire(&self, replica_id: &str) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM session_claims WHERE replica_id = $1")
            .bind(replica_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM replicas WHERE id = $1")
            .bind(replica_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn live_replicas(&self) -> Result<Vec<ReplicaRecord>> {
        let rows = sqlx::query(concat!(
            "SELECT id, address, routes FROM replicas WHERE expires_at > ",
            now_ms!(),
            " ORDER BY id"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(replica).collect())
    }

    async fn claim(&self, session_id: &str, replica_id: &str, ttl_ms: i64) -> Result<ClaimOutcome> {
        // `xmax = 0` tells a fresh insert from an update; the row's old holder is read in the
        // same statement (the CTE sees the snapshot before the upsert).
        let row = sqlx::query(concat!(
            "WITH before AS (SELECT replica_id FROM session_claims WHERE session_id = $1) \
             INSERT INTO session_claims AS c (session_id, replica_id, epoch, expires_at) \
             VALUES ($1, $2, 1, ",
            now_ms!(),
            " + $3) ON CONFLICT (session_id) DO UPDATE SET replica_id = excluded.replica_id, \
             epoch = c.epoch + 1, expires_at = excluded.expires_at \
             WHERE c.replica_id = excluded.replica_id OR c.expires_at <= ",
            now_ms!(),
            " RETURNING c.epoch, (SELECT replica_id FROM before) AS before"
        ))
        .bind(session_id)
        .bind(replica_id)
        .bind(ttl_ms)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(row) = row {
            let before: Option<String> = row.get("before");
            let previous = match before {
                None => Previous::None,
                Some(r) if r == replica_id => Previous::Own,
                Some(_) => Previous::Expired,
            };
            return Ok(ClaimOutcome::Claimed {
                epoch: row.get("epoch"),
                previous,
            });
        }
        // Someone else's unexpired claim. Its replica may have no row (it retired a moment
        // ago): then the address is empty and the caller cannot forward.
        let row = sqlx::query(
            "SELECT c.replica_id AS id, COALESCE(r.address, '') AS address, \
             COALESCE(r.routes, '[]') AS routes \
             FROM session_claims c LEFT JOIN replicas r ON r.id = c.replica_id \
             WHERE c.session_id = $1",
        )
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => Ok(ClaimOutcome::Held(replica(&row))),
            // Released between the two statements: claim again.
            None => Box::pin(self.claim(session_id, replica_id, ttl_ms)).await,
        }
    }

    async fn release(&self, fence: &Fence) -> Result<()> {
        sqlx::query(
            "DELETE FROM session_claims WHERE session_id = $1 AND replica_id = $2 AND epoch = $3",
        )
        .bind(&fence.session_id)
        .bind(&fence.replica_id)
        .bind(fence.epoch)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn holder(&self, session_id: &str) -> Result<Option<ReplicaRecord>> {
        let row = sqlx::query(concat!(
            "SELECT r.id, r.address, r.routes FROM session_claims c \
             JOIN replicas r ON r.id = c.replica_id \
             WHERE c.session_id = $1 AND c.expires_at > ",
            now_ms!(),
            " AND r.expires_at > ",
            now_ms!()
        ))
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(replica))
    }

    async fn hand_over(&self, from: &Fence, to_replica: &str, ttl_ms: i64) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let moved = sqlx::query(concat!(
            "UPDATE session_claims SET replica_id = $4, epoch = epoch + 1, expires_at = ",
            now_ms!(),
            " + $5 WHERE session_id = $1 AND replica_id = $2 AND epoch = $3"
        ))
        .bind(&from.session_id)
        .bind(&from.replica_id)
        .bind(from.epoch)
        .bind(to_replica)
        .bind(ttl_ms)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if moved {
            // Delivered at commit, so the target reads the moved claim.
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(HANDOVER_CHANNEL)
                .bind(&from.session_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(moved)
    }

    async fn orphans(&self) -> Result<Vec<Orphan>> {
        let rows = sqlx::query(concat!(
            "SELECT s.id, s.project_id FROM sessions s \
             LEFT JOIN session_claims c ON c.session_id = s.id \
             WHERE s.active_turn_id IS NOT NULL AND (c.session_id IS NULL OR c.expires_at <= ",
            now_ms!(),
            ") ORDER BY s.seq"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| Orphan {
                session_id: r.get("id"),
                project_id: r.get("project_id"),
            })
            .collect())
    }

    async fn held_unsettled(&self, replica_id: &str) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT s.id FROM sessions s JOIN session_claims c ON c.session_id = s.id \
             WHERE s.active_turn_id IS NOT NULL AND c.replica_id = $1 ORDER BY s.seq",
        )
        .bind(replica_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|r| r.get("id")).collect())
    }

    async fn claimed_session(
        &self,
        session_id: &str,
        replica_id: &str,
    ) -> Result<Option<SessionRecord>> {
        let row = sqlx::query(concat!(
            "SELECT ",
            session_columns!(),
            " FROM sessions JOIN session_claims c ON c.session_id = sessions.id \
                 WHERE sessions.id = $1 AND c.replica_id = $2"
        ))
        .bind(session_id)
        .bind(replica_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(session))
    }

    async fn handovers(&self) -> Result<mpsc::UnboundedReceiver<String>> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(HANDOVER_CHANNEL).await?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            loop {
                match listener.try_recv().await {
                    Ok(Some(n)) => {
                        if tx.send(n.payload().to_owned()).is_err() {
                            return;
                        }
                    }
                    // The connection was lost (and is re-opened by the next recv): a handover
                    // notified meanwhile is missed, so the caller's sweep re-reads its claims.
                    Ok(None) => {
                        if tx.send(String::new()).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "the handover listener stopped");
                        return;
                    }
                }
            }
        });
        Ok(rx)
    }
}

/// A write whose fence no longer holds.
pub(super) fn fenced(fence: &Fence) -> StoreError {
    StoreError::Fenced {
        replica_id: fence.replica_id.clone(),
        epoch: fence.epoch,
    }
}
