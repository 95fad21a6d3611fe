//! The Session engine: one lock per Session, and the commit rule every change follows.
//!
//! A change takes the Session's lock, works on a [`Tx`], and commits it: the store write first
//! (a change is durable before anyone can observe it), then the new state, then its events, in
//! order, then its Runtime frames. Because events are published under the lock, every stream
//! sees a Session's events in commit order.
//!
//! The engine also owns the Runtime links: frames from every link arrive at
//! [`Engine::handle_frame`], Turns are bound to a link and started by [`Engine::drive`], and a
//! lost link fails the Turns it had started (queued work stays queued).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;

use switchboard_execution::ModelProvider;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{
    ExecutionPrepare, ExecutionRelease, ExecutionStart, PreparationState, PromptSteer,
};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use switchboard_store::{SessionRecord, Store, StoreError};
use switchboard_wire::ids::{IdKind, new_id};
use tokio::sync::{OwnedMutexGuard, mpsc};

use super::configuration::{configuration, snapshot};
use super::error::SessionError;
use super::hub::Hub;
use super::links::{Links, Unavailable};
use super::objects::TurnStatus;
use super::state::{Effect, Live, SessionDoc, SessionMeta, Tx};
use crate::secrets::SecretBox;
use crate::sync::lock;

/// How long a Runtime may take to prepare a Session (a cold harness start included).
const PREPARE_TIMEOUT: Duration = Duration::from_secs(120);

type Slot = Arc<tokio::sync::Mutex<Option<Live>>>;
pub type Guard = OwnedMutexGuard<Option<Live>>;

pub struct Engine {
    pub store: Arc<dyn Store>,
    pub secrets: SecretBox,
    pub hub: Hub,
    pub links: Links,
    /// The deployment's model providers (one per protocol), for Sessions whose Agent and
    /// request name none.
    pub default_providers: Vec<ModelProvider>,
    sessions: Mutex<HashMap<String, Slot>>,
    /// Run ID → Session ID, for routing Turn frames.
    runs: Mutex<HashMap<String, String>>,
    /// Sessions whose Turn waits for a Runtime that can run it.
    queued: Mutex<Vec<String>>,
}

impl Engine {
    pub fn new(
        store: Arc<dyn Store>,
        secrets: SecretBox,
        default_providers: Vec<ModelProvider>,
    ) -> Arc<Engine> {
        Arc::new(Engine {
            store,
            secrets,
            hub: Hub::default(),
            links: Links::default(),
            default_providers,
            sessions: Mutex::new(HashMap::new()),
            runs: Mutex::new(HashMap::new()),
            queued: Mutex::new(Vec::new()),
        })
    }

    /// The deployment provider for a harness: the one speaking its default protocol, else any
    /// protocol it supports.
    pub fn default_provider(
        &self,
        harness: switchboard_execution::HarnessId,
    ) -> Option<ModelProvider> {
        let decl = switchboard_harness::declaration(harness);
        let speaks = |protocol| {
            self.default_providers
                .iter()
                .find(|p| p.protocol == protocol)
        };
        speaks(decl.default_protocol())
            .or_else(|| {
                self.default_providers
                    .iter()
                    .find(|p| decl.provider(p.protocol).is_some())
            })
            .cloned()
    }

    fn slot(&self, id: &str) -> Slot {
        lock(&self.sessions)
            .entry(id.to_owned())
            .or_default()
            .clone()
    }

    /// Locks a Session, loading it on first use. A missing Session is the public 404.
    pub async fn lock(&self, id: &str) -> Result<Guard, SessionError> {
        if !switchboard_wire::ids::is_valid(IdKind::Session, id) {
            return Err(SessionError::NotFound);
        }
        let mut guard = self.slot(id).lock_owned().await;
        if guard.is_none() {
            let Some(rec) = self.store.get_session(id).await? else {
                lock(&self.sessions).remove(id);
                return Err(SessionError::NotFound);
            };
            *guard = Some(self.live_from(&rec)?);
        }
        Ok(guard)
    }

    /// A Session's public object, read under its lock (so it reflects every committed change).
    pub async fn read(&self, id: &str) -> Result<serde_json::Value, SessionError> {
        let guard = self.lock(id).await?;
        let live = loaded(&guard)?;
        let session = live.to_json();
        if live.doc.active.is_none() {
            self.unload(id);
        }
        Ok(session)
    }

    /// Subscribes to a Session's live events from exactly after its last committed change.
    pub async fn subscribe(
        &self,
        id: &str,
    ) -> Result<tokio::sync::broadcast::Receiver<super::hub::Published>, SessionError> {
        let guard = self.lock(id).await?;
        let rx = self.hub.subscribe(id);
        if guard.as_ref().is_some_and(|l| l.doc.active.is_none()) {
            self.unload(id);
        }
        Ok(rx)
    }

    /// A Session's public object and, while a Turn is running, a subscription to its events
    /// from exactly after that object (both under the lock, so nothing falls between them).
    pub async fn read_and_subscribe(
        &self,
        id: &str,
    ) -> Result<
        (
            serde_json::Value,
            Option<tokio::sync::broadcast::Receiver<super::hub::Published>>,
        ),
        SessionError,
    > {
        let guard = self.lock(id).await?;
        let live = loaded(&guard)?;
        let session = live.to_json();
        if live.doc.active.is_none() {
            self.unload(id);
            return Ok((session, None));
        }
        Ok((session, Some(self.hub.subscribe(id))))
    }

    /// Locks a Session that is being created (not in the store yet).
    pub async fn lock_new(&self, live: Live) -> Guard {
        let mut guard = self.slot(&live.meta.id).lock_owned().await;
        *guard = Some(live);
        guard
    }

    pub fn live_from(&self, rec: &SessionRecord) -> Result<Live, SessionError> {
        let (meta, doc) = parse_record(rec)?;
        let mut agent = doc.agent.clone();
        let provider = match agent.x_agents_core.model_provider.as_mut() {
            Some(p) => {
                p.api_key = self.secrets.open(&p.api_key)?;
                p.clone()
            }
            // Sessions are admitted only with a provider; the deployment's went away since.
            None => self
                .default_provider(doc.harness)
                .ok_or_else(|| SessionError::ProviderGone(rec.id.clone()))?,
        };
        let snap = snapshot(
            &agent,
            meta.agent_id.clone(),
            doc.placement.clone(),
            doc.harness,
        );
        Ok(Live {
            meta,
            config: Arc::new(configuration(&snap, &provider)),
            doc,
        })
    }

    /// Commits a change: durable write, new state, events, frames (module docs).
    pub async fn commit(
        self: &Arc<Self>,
        guard: &mut Guard,
        mut tx: Tx,
    ) -> Result<(), SessionError> {
        let write = tx.take_write()?;
        if !write.is_empty() {
            self.store.write_session(write).await?;
        }
        let id = tx.live.meta.id.clone();
        let idle = tx.live.doc.active.is_none();
        let run = tx.live.doc.active.as_ref().map(|t| t.run_id.clone());
        let before = guard
            .as_ref()
            .and_then(|l| l.doc.active.as_ref())
            .map(|t| t.run_id.clone());
        **guard = Some(tx.live);
        if let Some(settled) = before.filter(|b| Some(b) != run.as_ref()) {
            // The Turn settled: its Run takes no more frames.
            lock(&self.runs).remove(&settled);
        }
        for effect in tx.effects {
            match effect {
                Effect::Publish(event) => self.hub.publish(&id, event),
                Effect::Send { link, id, message } => {
                    if let CoreToRuntime::ExecutionStart(start) = &*message {
                        lock(&self.runs).insert(start.run_id.clone(), start.session_id.clone());
                    }
                    self.links.send(link, Some(id), *message).await;
                }
                Effect::Drive => {
                    let this = self.clone();
                    let id = id.clone();
                    tokio::spawn(async move { this.drive(id).await });
                }
            }
        }
        if idle {
            self.unload(&id);
        }
        Ok(())
    }

    /// Drops an idle Session's state from memory (the store has all of it) when nobody else
    /// holds or awaits its lock. Checked under the map's lock, where new holders are made, so a
    /// Session never has two locks.
    fn unload(&self, id: &str) {
        let mut sessions = lock(&self.sessions);
        // One reference in the map, one in the committing caller's guard.
        if sessions
            .get(id)
            .is_some_and(|slot| Arc::strong_count(slot) == 2)
        {
            sessions.remove(id);
        }
    }

    /// Commits a change that no caller waits for (Runtime frames, dispatch): a store failure
    /// is logged and the change is lost, exactly as if the frame had not arrived.
    pub async fn commit_logged(self: &Arc<Self>, guard: &mut Guard, tx: Tx) {
        if let Err(e) = self.commit(guard, tx).await {
            tracing::error!(error = %e, "could not store a Session change");
        }
    }

    /// Drops a deleted Session's state and streams.
    pub fn forget(&self, id: &str) {
        lock(&self.sessions).remove(id);
        self.hub.close(id);
    }

    // -----------------------------------------------------------------------------------------
    // Runtime links

    /// Connects a Runtime: frames from `from_runtime` are handled until it closes, then the
    /// link's started Turns fail.
    pub fn attach(
        self: &Arc<Self>,
        runtime_id: String,
        local: bool,
        to_runtime: mpsc::Sender<Envelope<CoreToRuntime>>,
        mut from_runtime: mpsc::Receiver<Envelope<RuntimeToCore>>,
    ) -> u64 {
        let link = self.links.add(runtime_id, local, to_runtime);
        let this = self.clone();
        tokio::spawn(async move {
            while let Some(frame) = from_runtime.recv().await {
                this.handle_frame(link, frame).await;
            }
            this.link_lost(link).await;
        });
        link
    }

    async fn handle_frame(self: &Arc<Self>, link: u64, frame: Envelope<RuntimeToCore>) {
        match frame.message {
            RuntimeToCore::Heartbeat(beat) => {
                self.links.set_advertisement(link, beat.supported_harnesses);
                self.kick_queued();
            }
            RuntimeToCore::PreparationStatus(status) => match status.state {
                PreparationState::Ready | PreparationState::Failed => {
                    self.links.preparation_settled(link, status)
                }
                PreparationState::Released => {
                    self.links.set_prepared(link, &status.session_id, false)
                }
                PreparationState::Preparing => {}
            },
            RuntimeToCore::ProtocolError(e) => {
                tracing::warn!(link, frame = ?e.frame_type, code = %e.error_code, message = %e.message, "Runtime protocol error");
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
                    if live.doc.active.as_ref().map(|t| t.run_id.as_str()) != Some(&run_id) {
                        return;
                    }
                    if let Some(event) = super::frames::delta(live, delta) {
                        self.hub.publish(&session, event);
                    }
                    return;
                }
                let Some(live) = guard.as_ref() else { return };
                let mut tx = Tx::new(live);
                if tx.live.doc.active.as_ref().map(|t| t.run_id.as_str()) != Some(&run_id) {
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
                super::frames::fail(&mut tx, "runtime_lost", "the Runtime link closed");
            } else if let Some(t) = tx.active() {
                t.link = None;
                lock(&self.queued).push(id.clone());
            }
            self.commit_logged(&mut guard, tx).await;
        }
    }

    fn kick_queued(self: &Arc<Self>) {
        let queued = std::mem::take(&mut *lock(&self.queued));
        for id in queued {
            let this = self.clone();
            tokio::spawn(async move { this.drive(id).await });
        }
    }

    /// Moves the active Turn forward: bind it to a Runtime, prepare the Session there if
    /// needed, start the Turn and send the messages that joined it meanwhile.
    ///
    /// Boxed: a commit can start a drive, and a drive commits.
    pub fn drive(self: Arc<Self>, id: String) -> BoxFuture<'static, ()> {
        Box::pin(self.drive_turn(id))
    }

    async fn drive_turn(self: Arc<Self>, id: String) {
        let Ok(mut guard) = self.lock(&id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let Some(turn) = &live.doc.active else { return };
        if turn.started {
            return;
        }
        let config = live.config.clone();
        let link = match turn.link {
            Some(link) => link,
            None => {
                let snap = snapshot(
                    &live.doc.agent,
                    live.meta.agent_id.clone(),
                    live.doc.placement.clone(),
                    live.doc.harness,
                );
                let required = switchboard_harness::required_capabilities(&snap);
                match self.links.pick(config.harness, &required, &id) {
                    Ok(link) => {
                        let mut tx = Tx::new(live);
                        super::frames::bind(&mut tx, link);
                        self.commit_logged(&mut guard, tx).await;
                        link
                    }
                    // The harness's install failed everywhere it was advertised: the Turn
                    // cannot start, so it fails (the reason is logged, never shown).
                    Err(Unavailable::Failed(reason)) => {
                        let mut tx = Tx::new(live);
                        super::frames::fail(&mut tx, "harness_unavailable", &reason);
                        return self.commit_logged(&mut guard, tx).await;
                    }
                    // No Runtime yet, or one is installing the harness: wait for a heartbeat.
                    Err(_) => {
                        lock(&self.queued).push(id);
                        return;
                    }
                }
            }
        };
        drop(guard);

        if !self.links.is_prepared(link, &id) {
            let outcome = self.links.expect_preparation(link, &id);
            let prepare = ExecutionPrepare {
                session_id: id.clone(),
                configuration: (*config).clone(),
            };
            let sent = self
                .links
                .send(link, Some(id.clone()), prepare.into())
                .await;
            let status = match tokio::time::timeout(PREPARE_TIMEOUT, outcome).await {
                Ok(Ok(status)) if sent => status,
                _ => {
                    return self
                        .fail_unstarted(
                            &id,
                            link,
                            "preparation_timeout",
                            "no answer to execution_prepare",
                        )
                        .await;
                }
            };
            if status.state != PreparationState::Ready {
                let code = status
                    .error_code
                    .unwrap_or_else(|| "preparation_failed".into());
                let message = status.error.unwrap_or_default();
                return self.fail_unstarted(&id, link, &code, &message).await;
            }
            self.links.set_prepared(link, &id, true);
        }

        let Ok(mut guard) = self.lock(&id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let mut tx = Tx::new(live);
        let Some(turn) = tx.active() else { return };
        if turn.started || turn.link != Some(link) {
            return;
        }
        if turn.cancel_requested {
            super::frames::settle(&mut tx, TurnStatus::Cancelled, None);
            return self.commit_logged(&mut guard, tx).await;
        }
        turn.started = true;
        let run_id = turn.run_id.clone();
        let start = ExecutionStart {
            session_id: id.clone(),
            run_id: run_id.clone(),
            turn_id: turn.turn.id.clone(),
            input: turn.start_input.clone(),
        };
        let steers = std::mem::take(&mut turn.pending_steers);
        tx.touch();
        tx.send(link, run_id.clone(), start.into());
        for input in steers {
            let steer = PromptSteer {
                input_id: new_id(IdKind::Item),
                input,
            };
            tx.send(link, run_id.clone(), steer.into());
        }
        self.commit_logged(&mut guard, tx).await;
    }

    async fn fail_unstarted(self: &Arc<Self>, id: &str, link: u64, code: &str, message: &str) {
        let Ok(mut guard) = self.lock(id).await else {
            return;
        };
        let Some(live) = guard.as_ref() else { return };
        let mut tx = Tx::new(live);
        if tx
            .active()
            .is_some_and(|t| !t.started && t.link == Some(link))
        {
            super::frames::fail(&mut tx, code, message);
            self.commit_logged(&mut guard, tx).await;
        }
    }

    /// Asks every link holding the Session to release it.
    pub async fn release(&self, id: &str) {
        for link in self.links.preparing_links(id) {
            self.links.set_prepared(link, id, false);
            let release = ExecutionRelease {
                session_id: id.to_owned(),
            };
            self.links
                .send(link, Some(id.to_owned()), release.into())
                .await;
        }
    }

    /// After a restart, no Runtime holds a started Turn any more: those fail without replay;
    /// Turns that never started wait for a Runtime (core-contracts §6.7).
    pub async fn recover(self: &Arc<Self>) -> Result<(), StoreError> {
        for rec in self.store.unsettled_sessions().await? {
            let Ok(mut guard) = self.lock(&rec.id).await else {
                continue;
            };
            let Some(live) = guard.as_ref() else { continue };
            let mut tx = Tx::new(live);
            let Some(turn) = tx.active() else { continue };
            if turn.started {
                super::frames::fail(&mut tx, "core_restarted", "Core restarted during the Turn");
            } else {
                turn.link = None;
                tx.touch();
                lock(&self.queued).push(rec.id.clone());
            }
            self.commit_logged(&mut guard, tx).await;
        }
        Ok(())
    }
}

/// Reads a stored Session row.
pub fn parse_record(rec: &SessionRecord) -> Result<(SessionMeta, SessionDoc), SessionError> {
    let doc: SessionDoc = serde_json::from_str(&rec.doc)?;
    let metadata = serde_json::from_str(&rec.metadata)?;
    Ok((
        SessionMeta {
            id: rec.id.clone(),
            created_at: rec.created_at,
            agent_id: rec.agent_id.clone(),
            metadata,
        },
        doc,
    ))
}

/// The state under a Session's lock. [`Engine::lock`] loads it, so only a deleted Session's
/// lock holds none.
pub fn loaded(guard: &Guard) -> Result<&Live, SessionError> {
    guard.as_ref().ok_or(SessionError::NotFound)
}
