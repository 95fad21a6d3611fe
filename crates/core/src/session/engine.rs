//! The Session engine: one lock per Session, and the commit rule every change follows.
//!
//! A change takes the Session's lock, works on a [`Tx`], and commits it: the store write first
//! (a change is durable before anyone can observe it), then the new state, then its effects
//! (events to the Session's streams and frames to Runtimes) in the order the change recorded
//! them. Because effects are played under the lock, every stream sees a Session's events in
//! commit order, and no event or frame leaves before its change is stored.
//!
//! The engine's other halves live beside it: Turn dispatch, its queue and restart recovery in
//! `dispatch.rs`, and what the Runtime links' frames do in `link_frames.rs`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use switchboard_execution::ModelProvider;
use switchboard_protocol::CoreToRuntime;
use switchboard_store::{Previous, SessionRecord, Store, StoreError};
use switchboard_wire::ids::IdKind;
use tokio::sync::OwnedMutexGuard;

use super::configuration::{configuration, snapshot, with_workspace};
use super::error::SessionError;
use super::hub::{Hub, Subscription};
use super::reservations::Outcome;
use super::runtimes::Links;
use super::state::{Effect, Live, SessionDoc, SessionMeta, Tx};
use crate::secrets::SecretBox;
use crate::sync::lock;

pub(super) type Slot = Arc<tokio::sync::Mutex<Option<Live>>>;
pub type Guard = OwnedMutexGuard<Option<Live>>;

/// Deployment settings the Session engine needs.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// The URL Runtimes dial to reach this Core (`switchboard runtime --core URL`).
    pub public_url: String,
    /// How long input on an Environment Session waits for its Environment before it is
    /// refused (core-contracts §6.8: 5 minutes).
    pub reservation_deadline: std::time::Duration,
    /// How long a Runtime may take to prepare a Session (a cold harness start included), not
    /// counting a wait for a harness process slot.
    pub preparation_timeout: std::time::Duration,
}

/// The default [`EngineSettings::preparation_timeout`].
pub const PREPARATION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            public_url: "http://127.0.0.1:8080".into(),
            reservation_deadline: std::time::Duration::from_secs(300),
            preparation_timeout: PREPARATION_TIMEOUT,
        }
    }
}

pub struct Engine {
    pub store: Arc<dyn Store>,
    pub settings: EngineSettings,
    pub secrets: SecretBox,
    pub hub: Hub,
    pub links: Links,
    /// The deployment's model providers (one per protocol), for Sessions whose Agent and
    /// request name none.
    pub default_providers: Vec<ModelProvider>,
    pub(super) sessions: Mutex<HashMap<String, Slot>>,
    /// Run ID → Session ID, for routing Turn frames.
    pub(super) runs: Mutex<HashMap<String, String>>,
    /// Sessions whose Turn waits for a Runtime that can run it.
    pub(super) queued: Mutex<Vec<String>>,
    /// Input requests waiting on a reservation, by the reserved Turn's ID.
    pub(super) reservations:
        Mutex<HashMap<String, tokio::sync::oneshot::Sender<super::reservations::Outcome>>>,
    /// Set when this Core is one of several replicas on one database ([`Engine::replicate`]).
    pub(super) replica: OnceLock<Arc<super::replica::Replica>>,
    /// Idle Sessions kept loaded, least recently idle first ([`Engine::unload`]).
    idle: Mutex<VecDeque<String>>,
}

/// How many idle Sessions a single Core keeps loaded ([`Engine::unload`]).
pub const KEPT_IDLE: usize = 256;

impl Engine {
    pub fn new(
        store: Arc<dyn Store>,
        secrets: SecretBox,
        default_providers: Vec<ModelProvider>,
        settings: EngineSettings,
    ) -> Arc<Engine> {
        Arc::new(Engine {
            store,
            settings,
            secrets,
            hub: Hub::default(),
            links: Links::default(),
            default_providers,
            sessions: Mutex::new(HashMap::new()),
            runs: Mutex::new(HashMap::new()),
            queued: Mutex::new(Vec::new()),
            reservations: Mutex::new(HashMap::new()),
            replica: OnceLock::new(),
            idle: Mutex::new(VecDeque::new()),
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

    pub(super) fn slot(&self, id: &str) -> Slot {
        lock(&self.sessions)
            .entry(id.to_owned())
            .or_default()
            .clone()
    }

    /// Locks a Session of `project` for a caller's request, loading it on first use. A missing
    /// Session and another Project's are the same public 404.
    ///
    /// On replicas, loading first claims the Session ([`super::replica`]): one another live
    /// replica holds is [`SessionError::Moved`]; one taken over from a dead holder with an
    /// unsettled Turn is settled as after a restart before anyone sees it.
    pub async fn lock_in(self: &Arc<Self>, project: &str, id: &str) -> Result<Guard, SessionError> {
        if !switchboard_wire::ids::is_valid(IdKind::Session, id) {
            return Err(SessionError::NotFound);
        }
        loop {
            let mut guard = self.slot(id).lock_owned().await;
            match guard.as_ref() {
                Some(live) if live.meta.project_id != project => {
                    return Err(SessionError::NotFound);
                }
                Some(_) => return Ok(guard),
                None => {}
            }
            let read = self.store.get_session(project, id);
            let Some(rec) = crate::metrics::timed("get_session", read).await? else {
                drop(guard);
                self.unload(id);
                return Err(SessionError::NotFound);
            };
            let previous = match self.replica() {
                Some(replica) => match replica.claim(id).await {
                    Ok(previous) => Some(previous),
                    Err(e) => {
                        drop(guard);
                        self.unload(id);
                        return Err(e);
                    }
                },
                None => None,
            };
            *guard = Some(self.live_from(&rec)?);
            if previous == Some(Previous::Own) && rec.active_turn_id.is_some() {
                // Handed over to this replica and loaded by a request before the handover's
                // adoption: drive its Turn as the adoption would (a started one is left alone).
                let this = self.clone();
                let id = id.to_owned();
                tokio::spawn(async move { this.drive(id).await });
            }
            let orphaned = previous.is_some_and(|p| p != Previous::Own);
            if !orphaned || rec.active_turn_id.is_none() {
                return Ok(guard);
            }
            // Boxed: this rare path (a dead replica's Session) is a future of about 12 KB, and
            // inline it would size every lock's future, so every request's and every Runtime
            // frame's task, to it.
            Box::pin(self.settle_orphan(&mut guard)).await;
            if guard.as_ref().is_some_and(|l| l.doc.active.is_some()) {
                return Ok(guard);
            }
            // Settled and unloaded by its commit: load it again, as it is now.
        }
    }

    /// Claims a Session being created on this replica, before its first write.
    pub async fn claim_new(&self, id: &str) -> Result<(), SessionError> {
        match self.replica() {
            Some(replica) => replica.claim(id).await.map(drop),
            None => Ok(()),
        }
    }

    /// Locks a loaded Session for Core's own work (a timer, a Runtime's frame): no Project
    /// applies. Only Sessions with a Turn are worked on this way, and those stay loaded until
    /// the Turn settles ([`Self::unload`]); one that is not loaded is absent.
    pub async fn lock(&self, id: &str) -> Result<Guard, SessionError> {
        let guard = self.slot(id).lock_owned().await;
        if guard.is_none() {
            drop(guard);
            self.unload(id);
            return Err(SessionError::NotFound);
        }
        Ok(guard)
    }

    /// A Session's public object, read under its lock (so it reflects every committed change).
    pub async fn read(
        self: &Arc<Self>,
        project: &str,
        id: &str,
    ) -> Result<serde_json::Value, SessionError> {
        let guard = self.lock_in(project, id).await?;
        let live = loaded(&guard)?;
        let session = live.to_json();
        if live.doc.active.is_none() {
            self.unload(id);
        }
        Ok(session)
    }

    /// Subscribes to a Session's live events from exactly after its last committed change.
    /// Where events are kept as rows (replicas), without loading it (`session::events`).
    pub async fn subscribe(
        self: &Arc<Self>,
        project: &str,
        id: &str,
    ) -> Result<Subscription, SessionError> {
        if self.store.keeps_events() {
            if !switchboard_wire::ids::is_valid(IdKind::Session, id) {
                return Err(SessionError::NotFound);
            }
            return self.subscribe_rows(project, id).await;
        }
        let guard = self.lock_in(project, id).await?;
        let rx = self.hub.subscribe(id);
        if guard.as_ref().is_some_and(|l| l.doc.active.is_none()) {
            self.unload(id);
        }
        Ok(rx)
    }

    /// A Session's public object and, while a Turn is running, a subscription to its events
    /// from exactly after that object (both under the lock, so nothing falls between them).
    pub async fn read_and_subscribe(
        self: &Arc<Self>,
        project: &str,
        id: &str,
    ) -> Result<(serde_json::Value, Option<Subscription>), SessionError> {
        let guard = self.lock_in(project, id).await?;
        let live = loaded(&guard)?;
        let session = live.to_json();
        if live.doc.active.is_none() {
            self.unload(id);
            return Ok((session, None));
        }
        Ok((session, Some(self.subscribe_live(live))))
    }

    /// Locks a Session that is being created (not in the store yet).
    pub async fn lock_new(&self, live: Live) -> Guard {
        let mut guard = self.slot(&live.meta.id).lock_owned().await;
        *guard = Some(live);
        guard
    }

    pub fn live_from(&self, rec: &SessionRecord) -> Result<Live, SessionError> {
        let (meta, mut doc) = parse_record(rec)?;
        // A Turn loaded from the store (after a restart, or from another replica) lost its span
        // with the process: the rest of it is a trace of its own.
        if let Some(turn) = doc.active.as_mut() {
            turn.span = tracing::info_span!(
                parent: None,
                "turn",
                session.id = %meta.id,
                turn.id = %turn.turn.id,
                harness = doc.harness.as_str(),
                turn.status = tracing::field::Empty,
                turn.resumed = true,
            );
        }
        let mut agent = (*doc.agent).clone();
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
        let config = with_workspace(
            configuration(&snap, &provider),
            doc.workspace.clone(),
            &self.secrets,
        )?;
        Ok(Live {
            meta,
            config: Arc::new(config),
            doc,
            agent_stored: rec.agent.is_some(),
        })
    }

    /// Commits a change: durable write, new state, then its effects in order (module docs).
    pub async fn commit(
        self: &Arc<Self>,
        guard: &mut Guard,
        mut tx: Tx,
    ) -> Result<(), SessionError> {
        let published = self.stamp(&mut tx);
        let mut write = tx.take_write()?;
        let id = tx.live.meta.id.clone();
        if !write.is_empty() {
            write.fence = self.replica().and_then(|r| r.fence(&id));
            let written = crate::metrics::timed("write_session", self.store.write_session(write));
            if let Err(e) = written.await {
                if let (StoreError::Fenced { .. }, Some(replica)) = (&e, self.replica()) {
                    // Another replica holds the Session now: drop it from memory, so the next
                    // request loads (and forwards) it afresh.
                    tracing::warn!(session = %id, "a Session write was fenced: its claim moved");
                    replica.lost(&id);
                    **guard = None;
                }
                return Err(e.into());
            }
        }
        crate::metrics::committed(&tx.live.doc, &published);
        let idle = tx.live.doc.active.is_none();
        let run = tx.live.doc.active.as_ref().map(|t| t.run_id.clone());
        let before = guard
            .as_ref()
            .and_then(|l| l.doc.active.as_ref())
            .map(|t| t.run_id.clone());
        let turn_of = |l: &Live| l.doc.active.as_ref().map(|t| t.turn.id.clone());
        let reserved_before = guard
            .as_ref()
            .filter(|l| l.doc.reservation.is_some())
            .and_then(turn_of);
        let reserved_after = tx
            .live
            .doc
            .reservation
            .is_some()
            .then(|| turn_of(&tx.live))
            .flatten();
        let turn_after = turn_of(&tx.live);
        **guard = Some(*tx.live);
        match (reserved_before, reserved_after) {
            (Some(turn), None) => {
                let outcome = if turn_after.as_ref() == Some(&turn) {
                    Outcome::Admitted
                } else {
                    Outcome::Cancelled
                };
                self.reservation_settled(&turn, outcome);
            }
            (None, Some(turn)) => self.arm_deadline(id.clone(), turn),
            _ => {}
        }
        if let Some(settled) = before.filter(|b| Some(b) != run.as_ref()) {
            // The Turn settled: its Run takes no more frames.
            lock(&self.runs).remove(&settled);
        }
        self.before_publishing(&id, &published).await;
        let mut published = published.into_iter();
        for effect in tx.effects {
            match effect {
                Effect::Publish(_) | Effect::PublishSession { .. } => {
                    if let Some(event) = published.next() {
                        self.hub.publish(&id, event);
                    }
                }
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

    /// Lets an idle Session's state go from memory (the store has all of it) when nobody else
    /// holds or awaits its lock. Checked under the map's lock, where new holders are made, so a
    /// Session never has two locks.
    ///
    /// A replica drops it at once: another replica may take the Session next. A single Core
    /// keeps the [`KEPT_IDLE`] most recently idle Sessions loaded, so the next Turn of a
    /// Session in use starts without reading its row and rebuilding its configuration; only
    /// this Core writes its rows, so the state kept is the state stored. Past the bound, the
    /// least recently idle one goes, if it is still idle and nobody holds it (one in use is
    /// listed again when it is idle again).
    pub(super) fn unload(&self, id: &str) {
        let mut sessions = lock(&self.sessions);
        // One reference in the map, one in the committing caller's guard.
        if sessions
            .get(id)
            .is_none_or(|slot| Arc::strong_count(slot) != 2)
        {
            return;
        }
        if let Some(replica) = self.replica() {
            sessions.remove(id);
            replica.release(id);
            return;
        }
        let mut idle = lock(&self.idle);
        idle.retain(|kept| kept != id);
        idle.push_back(id.to_owned());
        while idle.len() > KEPT_IDLE {
            let Some(oldest) = idle.pop_front() else {
                break;
            };
            let unused = sessions.get(&oldest).is_some_and(|slot| {
                Arc::strong_count(slot) == 1
                    && slot
                        .try_lock()
                        .is_ok_and(|live| live.as_ref().is_none_or(|l| l.doc.active.is_none()))
            });
            if unused {
                sessions.remove(&oldest);
            }
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
        lock(&self.idle).retain(|kept| kept != id);
        if let Some(replica) = self.replica() {
            replica.release(id);
        }
        self.hub.close(id);
    }
}

/// Reads a stored Session row: its document, with the agent the store keeps apart (or, for a
/// Session written before it was kept apart, the one in the document itself).
pub fn parse_record(rec: &SessionRecord) -> Result<(SessionMeta, SessionDoc), SessionError> {
    let doc: SessionDoc = match &rec.agent {
        Some(agent) => serde_json::from_str(&with_agent(&rec.doc, agent)?)?,
        None => serde_json::from_str(&rec.doc)?,
    };
    let metadata = serde_json::from_str(&rec.metadata)?;
    Ok((
        SessionMeta {
            id: rec.id.clone(),
            project_id: rec.project_id.clone(),
            created_at: rec.created_at,
            agent_id: rec.agent_id.clone(),
            metadata,
        },
        doc,
    ))
}

/// The stored document `doc` (a JSON object's text) with `agent` as its first member: text
/// spliced, nothing parsed twice.
fn with_agent(doc: &str, agent: &str) -> Result<String, serde_json::Error> {
    let mut text = String::with_capacity(doc.len() + agent.len() + 10);
    if !crate::json_text::push_object_led_by(&mut text, &["\"agent\":", agent], doc.trim_start()) {
        return Err(serde::de::Error::custom(
            "a Session document is not a JSON object",
        ));
    }
    Ok(text)
}

/// The state under a Session's lock. [`Engine::lock`] loads it, so only a deleted Session's
/// lock holds none.
pub fn loaded(guard: &Guard) -> Result<&Live, SessionError> {
    guard.as_ref().ok_or(SessionError::NotFound)
}
