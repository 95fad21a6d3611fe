//! What a replica hears from the others on a shared PostgreSQL (issue 16, design items 7 and 8).
//!
//! One task per replica reads the store's one listening connection
//! ([`switchboard_store::Store::listen`]): a Session's event notification reads its new event
//! rows into this replica's streams ([`crate::session::Engine::catch_up`]); a keys notification
//! empties the key cache and makes every open stream check its key, so a revocation anywhere
//! ends its streams here at once. A lost connection is re-opened, and then every followed
//! Session is read again from its last published `seq` and the key cache emptied, so nothing
//! sent meanwhile is missed. Another task deletes event rows past their retention: streams are
//! live only, the rows exist to carry events between replicas.
//!
//! On SQLite the store has no notifications and keeps no rows: neither task runs.

use std::sync::Arc;
use std::time::Duration;

use switchboard_store::{Notice, Notifications};

use crate::state::AppState;

/// How long event rows are kept by default: far longer than any replica takes to read them.
pub const EVENT_RETENTION: Duration = Duration::from_secs(300);

/// Starts the listening task and the retention sweeper where the store has replicas; a
/// replica that cannot listen is refused at start (it would stream other replicas' Sessions
/// silently incomplete).
pub async fn start(state: &Arc<AppState>, retention: Duration) -> switchboard_store::Result<bool> {
    let Some(notifications) = state.store.listen().await? else {
        return Ok(false);
    };
    tokio::spawn(follow(state.clone(), notifications));
    tokio::spawn(sweep(state.clone(), retention));
    Ok(true)
}

async fn follow(state: Arc<AppState>, mut notifications: Box<dyn Notifications>) {
    loop {
        match notifications.next().await {
            Notice::Events(session) => state.engine.catch_up(&session).await,
            // Deleted on its holder: its streams here end too.
            Notice::Deleted(session) => state.engine.hub.close(&session),
            Notice::Keys => keys_changed(&state),
            Notice::Resumed => {
                keys_changed(&state);
                for session in state.engine.hub.followed() {
                    state.engine.catch_up(&session).await;
                }
            }
        }
    }
}

fn keys_changed(state: &AppState) {
    state.keys.forget();
    state.revocations.announce();
}

/// Deletes event rows older than `retention`, every half retention (at most every minute).
async fn sweep(state: Arc<AppState>, retention: Duration) {
    let every = (retention / 2).clamp(Duration::from_secs(1), Duration::from_secs(60));
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let cutoff = crate::unix_now() - i64::try_from(retention.as_secs()).unwrap_or(i64::MAX);
        match state.store.delete_events_before(cutoff).await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(rows = n, "swept old event rows"),
            Err(e) => tracing::warn!(error = %e, "could not sweep old event rows"),
        }
    }
}
