//! Shutting down with Turns in flight (issue 13, item 4): running Turns get a grace period to
//! finish; those still running after it fail with the public error, and their terminal events
//! (`turn.failed`, the Session's status) are published before the streams close. Turns that
//! never started stay queued in the store, and the next start dispatches them.

use std::sync::Arc;
use std::time::Duration;

use super::engine::{Engine, Slot};
use super::state::Tx;
use crate::sync::lock;

/// How often the grace period looks whether the started Turns have finished.
const POLL: Duration = Duration::from_millis(100);

impl Engine {
    /// Waits up to `grace` for every started Turn to finish, then fails the rest. Returns how
    /// many were failed.
    pub async fn drain(self: &Arc<Self>, grace: Duration) -> usize {
        let deadline = tokio::time::Instant::now() + grace;
        while !self.started_turns().await.is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        let mut failed = 0;
        for (_, slot) in self.started_turns().await {
            let mut guard = slot.lock_owned().await;
            let Some(live) = guard.as_ref() else { continue };
            if !live.doc.active.as_ref().is_some_and(|t| t.started) {
                continue;
            }
            let mut tx = Tx::new(live);
            super::turns::fail(&mut tx, "core_shutdown", "Core shut down during the Turn");
            self.commit_logged(&mut guard, tx).await;
            failed += 1;
        }
        failed
    }

    /// The Sessions whose active Turn has started on a Runtime.
    async fn started_turns(&self) -> Vec<(String, Slot)> {
        let slots: Vec<(String, Slot)> = lock(&self.sessions)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut started = Vec::new();
        for (id, slot) in slots {
            let running = slot
                .lock()
                .await
                .as_ref()
                .is_some_and(|live| live.doc.active.as_ref().is_some_and(|t| t.started));
            if running {
                started.push((id, slot));
            }
        }
        started
    }
}
