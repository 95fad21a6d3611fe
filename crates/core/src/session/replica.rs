//! This Core as one of several replicas on one PostgreSQL database (issue 16): the claims it
//! holds on loaded Sessions and their fencing epochs, its heartbeat, the sweep that adopts
//! dead replicas' Sessions, and handover to a replica whose Runtime can run a Turn.
//!
//! A Session is claimed while it is loaded in this replica's engine (`Engine::lock_in` of an
//! unloaded Session, a create, a handover's adoption) and released when it unloads; every
//! store write of it carries the claim's epoch as its fence, so a replica that lost the claim
//! writes nothing. Requests for a Session another live replica holds are forwarded there
//! (`crate::forward`). On SQLite the engine has no replica and none of this runs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_store::{ClaimOutcome, ClaimStore, Fence, Previous, ReplicaRecord};
use switchboard_wire::ids::{IdKind, new_id};

use super::engine::{Engine, Guard};
use super::error::SessionError;
use super::runtimes::Route;
use super::state::Tx;
use crate::sync::lock;

/// The header a forwarded request carries (the forwarding replica's ID), so it is never
/// forwarded again.
pub const FORWARDED: &str = "x-switchboard-forwarded";

/// The default life of a claim and a heartbeat (`serve --claim-ttl`).
pub const CLAIM_TTL: Duration = Duration::from_secs(10);

pub struct Replica {
    pub id: String,
    /// This replica's internal base URL (`http://host:port`).
    pub address: String,
    /// How long a claim and a heartbeat live unrenewed; renewed every third of it.
    pub ttl: Duration,
    pub claims: Arc<dyn ClaimStore>,
    /// The HTTP client requests are forwarded with.
    pub client: reqwest::Client,
    /// The epoch of each Session this replica holds (loaded in its engine).
    epochs: Mutex<HashMap<String, i64>>,
    /// Wakes the heartbeat early: the routes this replica's links serve changed.
    routes_changed: tokio::sync::Notify,
}

impl Replica {
    /// A replica with a new ID (each start is a new replica: the last run's claims expire).
    pub fn new(
        address: String,
        ttl: Duration,
        claims: Arc<dyn ClaimStore>,
    ) -> Result<Replica, reqwest::Error> {
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_secs(3))
            .build()?;
        let id = new_id(IdKind::Request).replacen("req_", "replica_", 1);
        Ok(Replica {
            id,
            address,
            ttl,
            claims,
            client,
            epochs: Mutex::new(HashMap::new()),
            routes_changed: tokio::sync::Notify::new(),
        })
    }

    /// A Runtime link advertised or went away: publish this replica's routes now, not at the
    /// next beat, so other replicas hand Turns to it (or stop) at once.
    pub fn routes_changed(&self) {
        self.routes_changed.notify_one();
    }

    fn ttl_ms(&self) -> i64 {
        i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX)
    }

    /// The fence of a Session this replica holds.
    pub fn fence(&self, session_id: &str) -> Option<Fence> {
        lock(&self.epochs).get(session_id).map(|epoch| Fence {
            session_id: session_id.to_owned(),
            replica_id: self.id.clone(),
            epoch: *epoch,
        })
    }

    /// Whether this replica holds the Session (it is loaded here).
    pub fn holds(&self, session_id: &str) -> bool {
        lock(&self.epochs).contains_key(session_id)
    }

    /// Forgets a held claim, returning its fence.
    fn take(&self, session_id: &str) -> Option<Fence> {
        let epoch = lock(&self.epochs).remove(session_id)?;
        Some(Fence {
            session_id: session_id.to_owned(),
            replica_id: self.id.clone(),
            epoch,
        })
    }

    /// Claims a Session for loading. `Held`: another live replica has it.
    pub async fn claim(&self, session_id: &str) -> Result<Previous, SessionError> {
        match self
            .claims
            .claim(session_id, &self.id, self.ttl_ms())
            .await?
        {
            ClaimOutcome::Claimed { epoch, previous } => {
                lock(&self.epochs).insert(session_id.to_owned(), epoch);
                Ok(previous)
            }
            ClaimOutcome::Held(holder) => Err(SessionError::Moved(holder.address)),
        }
    }

    /// Releases a claim in the background (an unload must not wait on the database); a
    /// release that arrives after a newer claim of the same Session leaves that one alone.
    pub fn release(&self, session_id: &str) {
        if let Some(fence) = self.take(session_id) {
            let claims = self.claims.clone();
            tokio::spawn(async move {
                if let Err(e) = claims.release(&fence).await {
                    tracing::warn!(session = %fence.session_id, error = %e, "cannot release a Session claim");
                }
            });
        }
    }

    /// A write was fenced: the Session is another replica's now; forget it without releasing.
    pub fn lost(&self, session_id: &str) {
        self.take(session_id);
    }
}

/// The route key a replica advertises for a harness it can run (`deployment/codex`,
/// `environment:env_…/codex`).
pub fn route_key(route: Route<'_>, harness: &str) -> String {
    match route {
        Route::Deployment => format!("deployment/{harness}"),
        Route::Environment(id) => format!("environment:{id}/{harness}"),
    }
}

impl Engine {
    /// Makes this engine one replica of several on the database: heartbeat, claims, sweeps and
    /// the handover listener start now. Called once, before [`Engine::recover`].
    pub fn replicate(self: &Arc<Self>, replica: Replica) {
        if self.replica.set(Arc::new(replica)).is_err() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move { this.heartbeats().await });
        let this = self.clone();
        tokio::spawn(async move { this.listen_handovers().await });
    }

    pub fn replica(&self) -> Option<&Arc<Replica>> {
        self.replica.get()
    }

    /// Every third of the claim life: renew this replica and its claims, adopt orphaned
    /// Sessions, and try queued Turns again (another replica's Runtime may serve them now).
    async fn heartbeats(self: Arc<Self>) {
        let Some(replica) = self.replica().cloned() else {
            return;
        };
        let mut every = tokio::time::interval(replica.ttl / 3);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut published: Option<Vec<String>> = None;
        loop {
            let early = tokio::select! {
                _ = every.tick() => false,
                () = replica.routes_changed.notified() => true,
            };
            let routes = self.links.routes();
            if early && published.as_ref() == Some(&routes) {
                continue;
            }
            published = Some(routes.clone());
            let me = ReplicaRecord {
                id: replica.id.clone(),
                address: replica.address.clone(),
                routes,
            };
            if let Err(e) = replica.claims.heartbeat(&me, replica.ttl_ms()).await {
                tracing::warn!(error = %e, "replica heartbeat failed");
                published = None;
                continue;
            }
            if early {
                self.kick_queued();
                continue;
            }
            self.sweep().await;
            self.kick_queued();
        }
    }

    /// Claims the Sessions whose holder died (their unsettled Turn's claim expired, or none
    /// ever claimed them) and settles them exactly as a restart does (`lock_in` applies
    /// [`Engine::settle_orphan`] on a takeover); adopts Sessions handed over to this replica
    /// whose notification was missed.
    pub async fn sweep(self: &Arc<Self>) {
        let Some(replica) = self.replica().cloned() else {
            return;
        };
        match replica.claims.orphans().await {
            Ok(orphans) => {
                for o in orphans {
                    if let Ok(guard) = self.lock_in(&o.project_id, &o.session_id).await
                        && guard.as_ref().is_some_and(|l| l.doc.active.is_none())
                    {
                        drop(guard);
                        self.unload(&o.session_id);
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read orphaned Sessions"),
        }
        match replica.claims.held_unsettled(&replica.id).await {
            Ok(held) => {
                for id in held.into_iter().filter(|id| !replica.holds(id)) {
                    self.adopt(&id).await;
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read this replica's claims"),
        }
    }

    async fn listen_handovers(self: Arc<Self>) {
        let Some(replica) = self.replica().cloned() else {
            return;
        };
        let mut retry = tokio::time::interval(replica.ttl / 3);
        loop {
            retry.tick().await;
            let mut rx = match replica.claims.handovers().await {
                Ok(rx) => rx,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen for handovers");
                    continue;
                }
            };
            while let Some(id) = rx.recv().await {
                // An empty payload: the connection was re-opened and notifications may have
                // been missed; the next sweep finds them in the claims table.
                if !id.is_empty() && !replica.holds(&id) {
                    self.adopt(&id).await;
                }
            }
        }
    }

    /// Loads a Session whose claim was handed to this replica and drives its Turn.
    async fn adopt(self: &Arc<Self>, id: &str) {
        let Some(replica) = self.replica().cloned() else {
            return;
        };
        let mut guard = self.slot(id).lock_owned().await;
        if guard.is_some() {
            return;
        }
        let rec = match replica.claims.claimed_session(id, &replica.id).await {
            Ok(Some(rec)) => rec,
            Ok(None) => {
                drop(guard);
                self.unload(id);
                return;
            }
            Err(e) => {
                tracing::warn!(session = id, error = %e, "cannot read a handed-over Session");
                drop(guard);
                self.unload(id);
                return;
            }
        };
        if let Err(e) = replica.claim(id).await {
            tracing::warn!(session = id, error = %e, "cannot claim a handed-over Session");
            drop(guard);
            self.unload(id);
            return;
        }
        match self.live_from(&rec) {
            Ok(live) => *guard = Some(live),
            Err(e) => {
                tracing::error!(session = id, error = %e, "cannot load a handed-over Session");
                drop(guard);
                self.unload(id);
                return;
            }
        }
        drop(guard);
        tracing::info!(session = id, "adopted a handed-over Session");
        self.clone().drive(id.to_owned()).await;
    }

    /// Hands a loaded Session whose Turn no local Runtime can run to a live replica whose
    /// Runtimes serve `route_key`. True when it moved: this replica forgets it.
    pub(super) async fn hand_over(&self, guard: &mut Guard, route_key: &str) -> bool {
        let Some(replica) = self.replica() else {
            return false;
        };
        let Some(id) = guard.as_ref().map(|l| l.meta.id.clone()) else {
            return false;
        };
        let Some(fence) = replica.fence(&id) else {
            return false;
        };
        let target = match replica.claims.live_replicas().await {
            Ok(all) => all
                .into_iter()
                .find(|r| r.id != replica.id && r.routes.iter().any(|k| k == route_key)),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the live replicas");
                None
            }
        };
        let Some(target) = target else { return false };
        match replica
            .claims
            .hand_over(&fence, &target.id, replica.ttl_ms())
            .await
        {
            Ok(true) => {
                tracing::info!(session = %id, to = %target.id, "handed a Session over");
                replica.lost(&id);
                **guard = None;
                true
            }
            // Lost meanwhile: it is another replica's anyway.
            Ok(false) => {
                replica.lost(&id);
                **guard = None;
                true
            }
            Err(e) => {
                tracing::warn!(session = %id, error = %e, "handover failed");
                false
            }
        }
    }

    /// Whether another live replica's Runtimes serve `route_key` (create admission on a
    /// replica without a Runtime of its own).
    pub(super) async fn served_elsewhere(&self, route_key: &str) -> bool {
        let Some(replica) = self.replica() else {
            return false;
        };
        replica.claims.live_replicas().await.is_ok_and(|all| {
            all.iter()
                .any(|r| r.id != replica.id && r.routes.iter().any(|k| k == route_key))
        })
    }

    /// A Session taken over from a dead holder (or never claimed) with an unsettled Turn:
    /// exactly the restart recovery (core-contracts §6.7): a started Turn fails without
    /// replay, one that never started waits for a Runtime.
    pub(super) async fn settle_orphan(self: &Arc<Self>, guard: &mut Guard) {
        let Some(live) = guard.as_ref() else { return };
        let id = live.meta.id.clone();
        let mut tx = Tx::new(live);
        let Some(turn) = tx.active() else { return };
        if turn.started {
            super::turns::fail(&mut tx, "core_restarted", "Core restarted during the Turn");
        } else {
            turn.link = None;
            let turn_id = turn.turn.id.clone();
            tx.touch();
            lock(&self.queued).push(id.clone());
            // A reservation's deadline restarts with its new holder (its timer died).
            if tx.live.doc.reservation.is_some() {
                self.arm_deadline(id.clone(), turn_id);
            }
        }
        self.commit_logged(guard, tx).await;
    }

    /// A clean shutdown: this replica's claims and row go at once instead of expiring.
    pub async fn retire(&self) {
        if let Some(replica) = self.replica()
            && let Err(e) = replica.claims.retire(&replica.id).await
        {
            tracing::warn!(error = %e, "cannot retire this replica");
        }
    }
}
