//! Self-hosted Environments and their Sessions (core-contracts §3.6, §6.8; agents-api-wire §8):
//! input that arrives while the Environment's Runtime is offline is a reservation (the Session
//! `requires_action` with an `environment_connection` action) that waits at most the
//! reservation deadline; the Runtime connecting clears it. The Environment's connection changes
//! are published on its Session's stream as `agent.session.environment.*`.

use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_protocol::workspace::WorkspacePlacement;
use tokio::sync::oneshot;

use super::engine::Engine;
use super::error::SessionError;
use super::objects::TurnStatus;
use super::state::{Reservation, Tx};
use crate::environments::{self, EnvironmentStatus};
use crate::sync::lock;

/// How a reservation ended, for an input request that waits on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The Environment connected: the input is admitted.
    Admitted,
    Expired,
    Cancelled,
}

impl Outcome {
    pub fn into_result(self) -> Result<(), SessionError> {
        match self {
            Outcome::Admitted => Ok(()),
            Outcome::Expired => Err(SessionError::EnvironmentInputExpired),
            Outcome::Cancelled => Err(SessionError::EnvironmentInputCancelled),
        }
    }
}

/// `agent.session.environment.<status>`.
pub fn environment_event(
    session_id: &str,
    turn_id: Option<&str>,
    environment_id: &str,
    kind: &str,
    status: EnvironmentStatus,
    error: Option<Value>,
) -> Value {
    let mut environment = json!({ "id": environment_id, "type": kind, "status": status });
    if let Some(e) = error {
        environment["error"] = e;
    }
    let name = serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    json!({
        "type": format!("agent.session.environment.{name}"),
        "session_id": session_id,
        "turn_id": turn_id,
        "environment": environment,
    })
}

impl Engine {
    /// The self-hosted Environment of this Session when its Runtime is not connected.
    pub(super) fn offline_environment(&self, tx: &Tx) -> Option<String> {
        let w = tx.live.doc.workspace.as_ref()?;
        (w.placement == WorkspacePlacement::SelfHosted
            && !self.links.environment_connected(&w.environment_id))
        .then(|| w.environment_id.clone())
    }

    /// Before a message opens a Turn: when the Environment is offline, the input becomes a
    /// reservation. Returns whether it did.
    pub(super) fn reserve_if_offline(&self, tx: &mut Tx, initial: bool) -> bool {
        if tx.live.doc.active.is_some() {
            return false;
        }
        let Some(environment_id) = self.offline_environment(tx) else {
            return false;
        };
        tx.live.doc.reservation = Some(Reservation {
            environment_id,
            initial,
        });
        true
    }

    /// After the messages of a reservation were applied: its `pending` event.
    pub(super) fn publish_pending(tx: &mut Tx) {
        let Some(r) = tx.live.doc.reservation.clone() else {
            return;
        };
        let sid = tx.id().to_owned();
        let tid = tx.live.doc.active.as_ref().map(|t| t.turn.id.clone());
        tx.publish(environment_event(
            &sid,
            tid.as_deref(),
            &r.environment_id,
            "self_hosted",
            EnvironmentStatus::Pending,
            None,
        ));
    }

    /// Registers interest in how the reservation of Turn `turn_id` ends.
    pub(super) fn await_reservation(&self, turn_id: &str) -> oneshot::Receiver<Outcome> {
        let (tx, rx) = oneshot::channel();
        lock(&self.reservations).insert(turn_id.to_owned(), tx);
        rx
    }

    /// A committed change ended a reservation (`before` → `after`, the active Turn IDs).
    pub(super) fn reservation_settled(&self, turn_id: &str, outcome: Outcome) {
        if let Some(waiter) = lock(&self.reservations).remove(turn_id) {
            let _ = waiter.send(outcome);
        }
    }

    /// Expires the reservation of Turn `turn_id` after the deadline, unless it ended before.
    pub(super) fn arm_deadline(self: &Arc<Self>, session_id: String, turn_id: String) {
        let this = self.clone();
        let deadline = self.settings.reservation_deadline;
        tokio::spawn(async move {
            // A timer, not synchronisation: the deadline is the rule (core-contracts §6.8).
            tokio::time::sleep(deadline).await;
            this.expire(&session_id, &turn_id).await;
        });
    }

    async fn expire(self: &Arc<Self>, session_id: &str, turn_id: &str) {
        let Ok(mut guard) = self.lock(session_id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let Some(reservation) = live.doc.reservation.clone() else {
            return;
        };
        if live.doc.active.as_ref().map(|t| t.turn.id.as_str()) != Some(turn_id) {
            return;
        }
        let mut tx = Tx::new(live);
        self.reservation_settled(turn_id, Outcome::Expired);
        if reservation.initial {
            // The Session's first input never ran: the Session fails.
            super::turns::fail(
                &mut tx,
                "environment_input_expired",
                "the Environment never connected",
            );
        } else {
            super::turns::settle(&mut tx, TurnStatus::Cancelled, None);
        }
        self.commit_logged(&mut guard, tx).await;
    }

    /// The self-hosted Environment's Runtime connected, advertised, or went away: its row's
    /// status changes and its Session hears of it; connecting clears a reservation.
    pub async fn environment_changed(
        self: &Arc<Self>,
        project: &str,
        environment_id: &str,
        status: EnvironmentStatus,
    ) {
        let mut env = match environments::load(self.store.as_ref(), project, environment_id).await {
            Ok(env) => env,
            Err(e) => {
                tracing::warn!(environment = environment_id, error = %e, "cannot read an Environment");
                return;
            }
        };
        let changed = env.doc.status != status;
        // A connection always clears a reservation, even one the row already calls connected
        // (Core stopped before it saw the last link go).
        if !changed && status != EnvironmentStatus::Connected {
            return;
        }
        env.doc.status = status;
        let Some(session_id) = env.doc.session_id.clone() else {
            return self.put_environment(&env).await;
        };
        // The Session may be idle (not loaded): it is loaded in the Environment's Project.
        let Ok(mut guard) = self.lock_in(project, &session_id).await else {
            return self.put_environment(&env).await;
        };
        let Some(live) = guard.as_ref() else { return };
        let mut tx = Tx::new(live);
        let tid = tx.live.doc.active.as_ref().map(|t| t.turn.id.clone());
        if changed {
            tx.publish(environment_event(
                &session_id,
                tid.as_deref(),
                environment_id,
                env.kind(),
                status,
                None,
            ));
        }
        if status == EnvironmentStatus::Connected && tx.live.doc.reservation.take().is_some() {
            tx.refresh_status();
        }
        match env.record() {
            Ok(rec) => tx.write.environment = Some(rec),
            Err(e) => tracing::error!(error = %e, "cannot store an Environment"),
        }
        tx.touch();
        self.commit_logged(&mut guard, tx).await;
    }

    async fn put_environment(&self, env: &environments::Environment) {
        let stored = match env.record() {
            Ok(rec) => self
                .store
                .put_environment(&rec)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = stored {
            tracing::error!(environment = %env.id, error = %e, "cannot store an Environment");
        }
    }
}
