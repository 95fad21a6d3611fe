//! The Engine's side of the Runtime links: attaching a link (which resends the deletions it
//! may still hold), what its frames do, and losing it. A lost link fails the Turns it had started (queued work stays
//! queued).

use std::sync::Arc;

use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::PreparationState;
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use tokio::sync::mpsc;

use super::engine::{Engine, Slot};
use super::state::Tx;
use crate::environments::EnvironmentStatus;
use crate::sync::lock;

impl Engine {
    /// Connects a Runtime: frames from `from_runtime` are handled until it closes, then the
    /// link's started Turns fail. `environment`: the self-hosted Environment an enrolled Runtime
    /// is bound to.
    pub fn attach(
        self: &Arc<Self>,
        runtime_id: String,
        local: bool,
        enrolled: Option<(String, String)>,
        to_runtime: mpsc::Sender<Envelope<CoreToRuntime>>,
        mut from_runtime: mpsc::Receiver<Envelope<RuntimeToCore>>,
    ) -> u64 {
        let environment = enrolled.as_ref().map(|(e, _)| e.clone());
        let project = enrolled.map(|(_, p)| p).unwrap_or_default();
        let link = self
            .links
            .add(runtime_id, local, environment.clone(), to_runtime);
        self.resume_deletions(link);
        let this = self.clone();
        tokio::spawn(async move {
            // Connection, not readiness: `ready` follows its first advertisement.
            if let Some(env) = &environment {
                this.environment_changed(&project, env, EnvironmentStatus::Connected)
                    .await;
            }
            let enrolled = environment.as_deref().map(|e| (project.as_str(), e));
            while let Some(frame) = from_runtime.recv().await {
                this.handle_frame(link, frame, enrolled).await;
            }
            this.link_lost(link).await;
            if let Some(env) = &environment
                && !this.links.environment_connected(env)
            {
                this.environment_changed(&project, env, EnvironmentStatus::Disconnected)
                    .await;
            }
        });
        link
    }

    async fn handle_frame(
        self: &Arc<Self>,
        link: u64,
        frame: Envelope<RuntimeToCore>,
        enrolled: Option<(&str, &str)>,
    ) {
        match frame.message {
            RuntimeToCore::Heartbeat(beat) => {
                let advertises = !beat.supported_harnesses.is_empty();
                self.links.set_advertisement(link, beat.supported_harnesses);
                if let Some(replica) = self.replica() {
                    replica.routes_changed();
                }
                if let Some((project, env)) = enrolled.filter(|_| advertises) {
                    self.environment_changed(project, env, EnvironmentStatus::Ready)
                        .await;
                }
                self.kick_queued();
            }
            RuntimeToCore::PreparationStatus(status) => match status.state {
                PreparationState::Ready | PreparationState::Failed => {
                    self.links.preparation_settled(link, status)
                }
                PreparationState::Released => {
                    self.links.set_prepared(link, &status.session_id, false);
                    // A delete waits for it before removing the Session's workspace.
                    self.links.preparation_settled(link, status)
                }
                PreparationState::Preparing | PreparationState::Queued => {
                    self.links.preparation_progress(link, status)
                }
            },
            RuntimeToCore::ProtocolError(e) => {
                tracing::warn!(link, frame = ?e.frame_type, code = %e.error_code, message = %e.message, "Runtime protocol error");
            }
            RuntimeToCore::WorkspaceResult(result) => {
                let answered = frame
                    .id
                    .as_deref()
                    .is_some_and(|id| self.links.workspace_result(id, result));
                if !answered {
                    tracing::debug!(link, "a workspace_result nobody awaits is ignored");
                }
            }
            RuntimeToCore::Hello(_) => {
                tracing::warn!(link, "a second hello on an open link is ignored");
            }
            message => {
                let Some(run_id) = frame.id else {
                    tracing::warn!(link, "a Turn frame without a Run ID is ignored");
                    return;
                };
                let session = lock(&self.runs).get(&run_id).cloned();
                let Some(session) = session else {
                    tracing::debug!(link, run = %run_id, "a frame for a settled Run is ignored");
                    return;
                };
                let Ok(mut guard) = self.lock(&session).await else {
                    return;
                };
                if let RuntimeToCore::Delta(delta) = message {
                    let Some(live) = guard.as_mut() else { return };
                    if !answers(live.doc.active.as_ref(), &run_id, link) {
                        return;
                    }
                    if let Some(event) = super::native_items::delta(live, delta) {
                        self.publish_unstored(&mut guard, event).await;
                    }
                    return;
                }
                let Some(live) = guard.as_ref() else { return };
                let mut tx = Tx::new(live);
                if !answers(tx.live.doc.active.as_ref(), &run_id, link) {
                    return;
                }
                super::frames::apply(&mut tx, message);
                self.commit_logged(&mut guard, tx).await;
            }
        }
    }

    /// A link closed: every Turn it had started fails without replay; Turns bound to it but
    /// not started go back to the queue (core-contracts §6.7).
    async fn link_lost(self: &Arc<Self>, link: u64) {
        tracing::warn!(link, "Runtime link closed");
        self.links.remove(link);
        if let Some(replica) = self.replica() {
            replica.routes_changed();
        }
        let slots: Vec<(String, Slot)> = lock(&self.sessions)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (id, slot) in slots {
            let mut guard = slot.lock_owned().await;
            let Some(live) = guard.as_ref() else { continue };
            let Some(turn) = &live.doc.active else {
                continue;
            };
            if turn.link != Some(link) {
                continue;
            }
            let mut tx = Tx::new(live);
            if turn.started {
                super::turns::fail(&mut tx, "runtime_lost", "the Runtime link closed");
            } else if let Some(t) = tx.active() {
                t.link = None;
                lock(&self.queued).push(id.clone());
            }
            self.commit_logged(&mut guard, tx).await;
        }
    }
}

/// Whether a Turn frame for `run_id` from `link` belongs to the active Turn: the Run is the
/// active one and this link runs it. A Runtime cannot answer a Turn dispatched to another link
/// (another Environment's Runtime included), even if it learned the Run ID.
fn answers(active: Option<&super::state::ActiveTurn>, run_id: &str, link: u64) -> bool {
    active.is_some_and(|t| t.run_id == run_id && t.link == Some(link))
}
