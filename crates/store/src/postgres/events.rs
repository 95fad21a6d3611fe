//! Events and keys across replicas on PostgreSQL (issue 16, design items 7 and 8): the event
//! rows a Session write adds with its `NOTIFY`, the keys epoch bump, the sweeper's delete, and
//! the one listening connection of a replica.

use async_trait::async_trait;
use sqlx::postgres::{PgListener, PgPoolOptions};
use sqlx::{PgPool, Row};

use crate::notify::{EVENTS_CHANNEL, KEYS_CHANNEL, Notice, Notifications};
use crate::writer::{Bind, Statement};
use crate::{EventRecord, Result};

/// The application name of the listening connection, so an operator (or a test) can tell it
/// apart in `pg_stat_activity`.
pub const LISTENER_APPLICATION: &str = "switchboard-listen";

/// How long a failed reconnect waits before it is tried again (a retry pace, not a wait for
/// anything to happen).
const RECONNECT_PAUSE: std::time::Duration = std::time::Duration::from_millis(200);

/// The rows of a write's events and one notification per Session, in the write's transaction,
/// so nothing is announced before it is durable and notifications arrive in commit order.
pub(super) fn statements(events: Vec<EventRecord>) -> Vec<Statement> {
    let mut notified: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(events.len() + 1);
    for e in events {
        if !notified.contains(&e.session_id) {
            notified.push(e.session_id.clone());
        }
        out.push(Statement::new(
            "INSERT INTO session_events (session_id, seq, project_id, type, json, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            vec![
                Bind::Text(e.session_id),
                Bind::I64(e.seq),
                Bind::Text(e.project_id),
                Bind::Text(e.kind),
                Bind::Text(e.json),
                Bind::I64(e.created_at),
            ],
        ));
    }
    out.extend(notified.into_iter().map(|id| {
        Statement::new(
            "SELECT pg_notify('switchboard_events', $1)",
            vec![Bind::Text(id)],
        )
    }));
    out
}

/// Bumps the keys epoch and notifies it, in the transaction of the key or Project change.
pub(super) fn bump_keys_epoch() -> Statement {
    Statement::new(
        "UPDATE keys_epoch SET epoch = epoch + 1 WHERE id = 1 \
         RETURNING pg_notify('switchboard_keys', epoch::text)",
        vec![],
    )
}

pub(super) async fn events_after(
    pool: &PgPool,
    session_id: &str,
    after: i64,
) -> Result<Vec<EventRecord>> {
    let rows =
        sqlx::query("SELECT * FROM session_events WHERE session_id = $1 AND seq > $2 ORDER BY seq")
            .bind(session_id)
            .bind(after)
            .fetch_all(pool)
            .await?;
    Ok(rows
        .iter()
        .map(|r| EventRecord {
            session_id: r.get("session_id"),
            seq: r.get("seq"),
            project_id: r.get("project_id"),
            kind: r.get("type"),
            json: r.get("json"),
            created_at: r.get("created_at"),
        })
        .collect())
}

pub(super) async fn delete_before(pool: &PgPool, before: i64) -> Result<u64> {
    Ok(
        sqlx::query("DELETE FROM session_events WHERE created_at < $1")
            .bind(before)
            .execute(pool)
            .await?
            .rows_affected(),
    )
}

pub(super) async fn keys_epoch(pool: &PgPool) -> Result<i64> {
    Ok(sqlx::query("SELECT epoch FROM keys_epoch WHERE id = 1")
        .fetch_one(pool)
        .await?
        .get("epoch"))
}

/// A replica's listening connection, on a pool of its own (one connection that lives as long
/// as the replica, named [`LISTENER_APPLICATION`]).
pub(super) struct PgNotifications {
    pool: PgPool,
    listener: Option<PgListener>,
}

impl PgNotifications {
    pub(super) async fn open(store_pool: &PgPool) -> Result<PgNotifications> {
        let options = (*store_pool.connect_options())
            .clone()
            .application_name(LISTENER_APPLICATION);
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_lazy_with(options);
        let mut this = PgNotifications {
            pool,
            listener: None,
        };
        // The first connection must work at start: a replica that cannot listen refuses to run.
        this.listener = Some(this.connect().await?);
        Ok(this)
    }

    /// A fresh connection that listens on both channels (LISTEN has returned: from here on no
    /// notification is missed).
    async fn connect(&self) -> Result<PgListener> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.ignore_pool_close_event(true);
        listener.listen_all([EVENTS_CHANNEL, KEYS_CHANNEL]).await?;
        Ok(listener)
    }
}

#[async_trait]
impl Notifications for PgNotifications {
    async fn next(&mut self) -> Notice {
        loop {
            let Some(listener) = self.listener.as_mut() else {
                match self.connect().await {
                    Ok(l) => {
                        self.listener = Some(l);
                        tracing::info!("listening for other replicas' commits again");
                        return Notice::Resumed;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "could not re-open the LISTEN connection");
                        tokio::time::sleep(RECONNECT_PAUSE).await;
                        continue;
                    }
                }
            };
            match listener.try_recv().await {
                Ok(Some(n)) if n.channel() == EVENTS_CHANNEL => {
                    return match n.payload().strip_prefix("deleted ") {
                        Some(id) => Notice::Deleted(id.to_owned()),
                        None => Notice::Events(n.payload().to_owned()),
                    };
                }
                Ok(Some(_)) => return Notice::Keys,
                Ok(None) => {
                    // sqlx re-opened the connection and listens again (eager reconnect), but
                    // what was sent meanwhile is lost: the reader re-reads.
                    tracing::warn!("the LISTEN connection was lost and re-opened");
                    return Notice::Resumed;
                }
                Err(e) => {
                    // A terminated backend, a failover: start over on a new connection.
                    tracing::warn!(error = %e, "the LISTEN connection failed");
                    self.listener = None;
                }
            }
        }
    }
}
