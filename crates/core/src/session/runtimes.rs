//! Runtime links: the Runtimes connected to Core, what each advertises, and which Sessions each
//! has prepared.
//!
//! A link is a pair of frame channels, the same for the in-process Runtime and for a remote one
//! whose WebSocket is bridged onto channels. A link's `heartbeat` replaces its advertisement;
//! an advertisement alone never enables an operation, it only narrows what the harness
//! declaration already allows (core-contracts §6.4).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sync::lock;
use serde_json::Value;
use switchboard_harness::Capability;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::capabilities::{HarnessAdvertisement, HarnessState};
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{PreparationState, PreparationStatus};
use switchboard_protocol::workspace::WorkspaceResult;
use tokio::sync::{mpsc, oneshot};

struct Link {
    runtime_id: String,
    local: bool,
    /// The self-hosted Environment this link was enrolled for: it runs that Environment's
    /// Sessions and nothing else. `None`: a deployment Runtime (local, or remote with the
    /// Runtime token), which runs `environment: none` and managed-workspace Sessions.
    environment: Option<String>,
    tx: mpsc::Sender<Envelope<CoreToRuntime>>,
    /// Whether the last heartbeat listed any harness (readiness), runnable or not.
    advertised: bool,
    /// Each runnable harness with the capabilities it advertises, read once per heartbeat.
    runnable: Vec<(HarnessId, HashSet<Capability>)>,
    /// Every advertised harness's state (`/readyz`, and whether a waiting Turn can still run).
    states: Vec<(HarnessId, HarnessState)>,
    prepared: HashSet<String>,
}

/// Which links may run a Session: its placement decides, never the Runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route<'a> {
    /// `environment: none` or a managed workspace: any deployment Runtime (never an enrolled
    /// one).
    Deployment,
    /// A self-hosted Environment: only the link enrolled for it.
    Environment(&'a str),
}

impl Link {
    fn serves(&self, route: Route<'_>) -> bool {
        match route {
            Route::Deployment => self.environment.is_none(),
            Route::Environment(id) => self.environment.as_deref() == Some(id),
        }
    }
}

/// Why no connected Runtime can run a Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// No Runtime has the harness installed and runnable, or is installing it: a Turn waits
    /// for one to connect.
    Harness,
    /// A Runtime is installing the harness: a Turn waits for the install to end.
    Installing,
    /// Every Runtime that advertises the harness has it failed (its install failed, or the
    /// executable is unusable); the reason is the first such Runtime's.
    Failed(String),
    /// Runtimes have the harness, but none advertises this capability.
    Capability(Capability),
}

#[derive(Default)]
pub struct Links {
    next: AtomicU64,
    links: Mutex<HashMap<u64, Link>>,
    /// Who waits on a preparation's (or release's) statuses, by link and Session.
    preparing: Mutex<HashMap<(u64, String), mpsc::UnboundedSender<PreparationStatus>>>,
    /// Workspace requests awaiting their `workspace_result`, by frame id (`wsreq_…`).
    workspace: Mutex<HashMap<String, oneshot::Sender<WorkspaceResult>>>,
}

/// The capabilities an advertisement turns on, by their wire member names (the names of
/// [`Capability`]).
fn advertised(ad: &HarnessAdvertisement) -> HashSet<Capability> {
    let Ok(Value::Object(fields)) = serde_json::to_value(ad.capabilities) else {
        return HashSet::new();
    };
    fields
        .iter()
        .filter(|(_, on)| on.as_bool() == Some(true))
        .filter_map(|(name, _)| Capability::parse(name))
        .collect()
}

/// Sets the Runtime links gauge by kind from the link table.
fn report_links(links: &HashMap<u64, Link>) {
    let mut counts = [("local", 0u32), ("deployment", 0), ("environment", 0)];
    for link in links.values() {
        let kind = match (link.local, &link.environment) {
            (true, _) => 0,
            (false, None) => 1,
            (false, Some(_)) => 2,
        };
        counts[kind].1 += 1;
    }
    for (kind, n) in counts {
        metrics::gauge!(crate::metrics::RUNTIME_LINKS, "kind" => kind).set(f64::from(n));
    }
}

impl Links {
    /// Adds a link; `environment` is the self-hosted Environment an enrolled Runtime is bound
    /// to (see [`Link`]).
    pub fn add(
        &self,
        runtime_id: String,
        local: bool,
        environment: Option<String>,
        tx: mpsc::Sender<Envelope<CoreToRuntime>>,
    ) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut links = lock(&self.links);
        links.insert(
            id,
            Link {
                runtime_id,
                local,
                environment,
                tx,
                advertised: false,
                runnable: Vec::new(),
                states: Vec::new(),
                prepared: HashSet::new(),
            },
        );
        report_links(&links);
        id
    }

    pub fn remove(&self, link: u64) {
        {
            let mut links = lock(&self.links);
            links.remove(&link);
            report_links(&links);
        }
        lock(&self.preparing).retain(|(l, _), _| *l != link);
    }

    pub fn runtime_id(&self, link: u64) -> Option<String> {
        let links = lock(&self.links);
        links.get(&link).map(|l| l.runtime_id.clone())
    }

    pub fn set_advertisement(&self, link: u64, harnesses: Vec<HarnessAdvertisement>) {
        if let Some(l) = lock(&self.links).get_mut(&link) {
            l.advertised = !harnesses.is_empty();
            l.runnable = harnesses
                .iter()
                .filter(|a| a.available)
                .map(|a| (a.harness, advertised(a)))
                .collect();
            l.states = harnesses
                .into_iter()
                .map(|a| (a.harness, a.state))
                .collect();
        }
    }

    /// The route keys this Core's links serve, for its replica row
    /// ([`super::replica::route_key`]): each link's route with each harness it runs or is
    /// installing.
    pub fn routes(&self) -> Vec<String> {
        let links = lock(&self.links);
        let mut keys: Vec<String> = links
            .values()
            .flat_map(|l| {
                let route = match &l.environment {
                    Some(id) => Route::Environment(id),
                    None => Route::Deployment,
                };
                l.states
                    .iter()
                    .filter(|(_, s)| {
                        matches!(s, HarnessState::Available | HarnessState::Installing)
                    })
                    .map(move |(h, _)| super::replica::route_key(route, h.as_str()))
                    .collect::<Vec<_>>()
            })
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The self-hosted Environment a link is bound to, if any.
    pub fn environment(&self, link: u64) -> Option<String> {
        lock(&self.links)
            .get(&link)
            .and_then(|l| l.environment.clone())
    }

    /// Whether the Runtime enrolled for this Environment is connected (connection, not
    /// readiness: it may not have advertised yet).
    pub fn environment_connected(&self, environment_id: &str) -> bool {
        let links = lock(&self.links);
        links
            .values()
            .any(|l| l.serves(Route::Environment(environment_id)))
    }

    /// The link enrolled for this self-hosted Environment.
    pub fn environment_link(&self, environment_id: &str) -> Option<u64> {
        let links = lock(&self.links);
        links
            .iter()
            .filter(|(_, l)| l.serves(Route::Environment(environment_id)))
            .map(|(id, _)| *id)
            .min()
    }

    /// A deployment link: the one of `runtime_id` when given (a managed workspace lives on
    /// the Runtime that made it), else the local one, else the oldest.
    pub fn deployment_link(&self, runtime_id: Option<&str>) -> Option<u64> {
        let links = lock(&self.links);
        let deployment = links.iter().filter(|(_, l)| l.serves(Route::Deployment));
        match runtime_id {
            Some(rid) => deployment
                .filter(|(_, l)| l.runtime_id == rid)
                .map(|(id, _)| *id)
                .min(),
            None => deployment
                .min_by_key(|(id, l)| (!l.local, **id))
                .map(|(id, _)| *id),
        }
    }

    /// Registers interest in the `workspace_result` of frame `id`.
    pub fn expect_workspace_result(&self, id: &str) -> oneshot::Receiver<WorkspaceResult> {
        let (tx, rx) = oneshot::channel();
        lock(&self.workspace).insert(id.to_owned(), tx);
        rx
    }

    pub fn forget_workspace_request(&self, id: &str) {
        lock(&self.workspace).remove(id);
    }

    /// A `workspace_result` arrived; false when nobody awaits that frame id.
    pub fn workspace_result(&self, id: &str, result: WorkspaceResult) -> bool {
        let waiter = lock(&self.workspace).remove(id);
        waiter.is_some_and(|w| w.send(result).is_ok())
    }

    /// The local Runtime has advertised its harnesses.
    pub fn local_ready(&self) -> bool {
        let links = lock(&self.links);
        links.values().any(|l| l.local && l.advertised)
    }

    /// `/readyz`: each harness's best state over the Runtimes that count (the local one while
    /// it is attached: remote ones do not make a deployment with a local Runtime ready; with no
    /// local link, `serve --no-local-runtime`, every link), `None` where none advertises it.
    /// Best is `available`, then `installing`, then `failed`, then `missing`.
    pub fn harness_states(&self) -> HashMap<HarnessId, HarnessState> {
        // (Keyed by the protocol's harness id; `/readyz` names them by their wire names.)
        let links = lock(&self.links);
        let local_attached = links.values().any(|l| l.local);
        let mut best: HashMap<HarnessId, HarnessState> = HashMap::new();
        let counted = |l: &&Link| l.environment.is_none() && (l.local || !local_attached);
        for link in links.values().filter(counted) {
            for (harness, state) in &link.states {
                let better = best.get(harness).is_none_or(|b| rank(state) < rank(b));
                if better {
                    best.insert(*harness, state.clone());
                }
            }
        }
        best
    }

    /// A link on `route` that can run `harness` with every `required` capability, preferring
    /// one that has the Session prepared already.
    pub fn pick(
        &self,
        harness: HarnessId,
        required: &[Capability],
        session_id: &str,
        route: Route<'_>,
    ) -> Result<u64, Unavailable> {
        self.pick_on(harness, required, session_id, route, None)
    }

    /// [`Self::pick`] among the links of one Runtime (`runtime_id`) when given.
    pub fn pick_on(
        &self,
        harness: HarnessId,
        required: &[Capability],
        session_id: &str,
        route: Route<'_>,
        runtime_id: Option<&str>,
    ) -> Result<u64, Unavailable> {
        let links = lock(&self.links);
        let mut missing = None;
        let mut best: Option<u64> = None;
        let mut installing = false;
        let mut failed = None;
        let on_runtime = |l: &Link| runtime_id.is_none_or(|r| l.runtime_id == r);
        for (id, link) in links
            .iter()
            .filter(|(_, l)| l.serves(route) && on_runtime(l))
        {
            let Some((_, caps)) = link.runnable.iter().find(|(h, _)| *h == harness) else {
                match link.states.iter().find(|(h, _)| *h == harness) {
                    Some((_, HarnessState::Installing)) => installing = true,
                    Some((_, HarnessState::Failed { reason })) => {
                        failed.get_or_insert_with(|| reason.clone());
                    }
                    _ => {}
                }
                continue;
            };
            if let Some(cap) = required.iter().find(|c| !caps.contains(c)) {
                missing.get_or_insert(*cap);
                continue;
            }
            if link.prepared.contains(session_id) {
                return Ok(*id);
            }
            best = Some(best.map_or(*id, |b| b.min(*id)));
        }
        best.ok_or(match (missing, installing, failed) {
            (Some(cap), _, _) => Unavailable::Capability(cap),
            (None, true, _) => Unavailable::Installing,
            (None, false, Some(reason)) => Unavailable::Failed(reason),
            (None, false, None) => Unavailable::Harness,
        })
    }

    pub fn is_prepared(&self, link: u64, session_id: &str) -> bool {
        let links = lock(&self.links);
        links
            .get(&link)
            .is_some_and(|l| l.prepared.contains(session_id))
    }

    pub fn set_prepared(&self, link: u64, session_id: &str, prepared: bool) {
        if let Some(l) = lock(&self.links).get_mut(&link) {
            if prepared {
                l.prepared.insert(session_id.to_owned());
            } else {
                l.prepared.remove(session_id);
            }
        }
    }

    /// Every link that runs Sessions of `route` (so may hold a Session's state), whether or not
    /// it prepared the Session since it connected.
    pub fn serving(&self, route: Route<'_>) -> Vec<u64> {
        let links = lock(&self.links);
        let mut ids: Vec<u64> = links
            .iter()
            .filter(|(_, l)| l.serves(route))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Whether `link` runs Sessions of `route`.
    pub fn link_serves(&self, link: u64, route: Route<'_>) -> bool {
        lock(&self.links)
            .get(&link)
            .is_some_and(|l| l.serves(route))
    }

    /// Links holding a prepared executor for the Session.
    pub fn preparing_links(&self, session_id: &str) -> Vec<u64> {
        let links = lock(&self.links);
        links
            .iter()
            .filter(|(_, l)| l.prepared.contains(session_id))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Registers interest in the statuses of a preparation (or a release) until it settles.
    pub fn expect_preparation(&self, link: u64, session_id: &str) -> PreparationWatch {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.preparing).insert((link, session_id.to_owned()), tx);
        PreparationWatch(rx)
    }

    /// A `preparing` or `queued` status: the waiter hears it and keeps waiting.
    pub fn preparation_progress(&self, link: u64, status: PreparationStatus) {
        let preparing = lock(&self.preparing);
        if let Some(waiter) = preparing.get(&(link, status.session_id.clone())) {
            let _ = waiter.send(status);
        }
    }

    pub fn preparation_settled(&self, link: u64, status: PreparationStatus) {
        let waiter = lock(&self.preparing).remove(&(link, status.session_id.clone()));
        if let Some(waiter) = waiter {
            let _ = waiter.send(status);
        }
    }

    /// Sends a frame; false when the link is gone.
    pub async fn send(&self, link: u64, id: Option<String>, message: CoreToRuntime) -> bool {
        let tx = {
            let links = lock(&self.links);
            links.get(&link).map(|l| l.tx.clone())
        };
        match tx {
            Some(tx) => tx.send(Envelope::new(id, message)).await.is_ok(),
            None => false,
        }
    }
}

/// Lower is better: how close a state is to running a Session.
fn rank(state: &HarnessState) -> u8 {
    match state {
        HarnessState::Available => 0,
        HarnessState::Installing => 1,
        HarnessState::Failed { .. } => 2,
        HarnessState::Missing => 3,
    }
}

/// The statuses one preparation (or release) reports, in order; ends when its link is lost.
pub struct PreparationWatch(mpsc::UnboundedReceiver<PreparationStatus>);

impl PreparationWatch {
    /// The next status; `None` once the link is gone.
    pub async fn next(&mut self) -> Option<PreparationStatus> {
        self.0.recv().await
    }

    /// The settling status (`ready`, `failed` or `released`), past any progress.
    pub async fn settled(mut self) -> Option<PreparationStatus> {
        loop {
            let status = self.next().await?;
            if !matches!(
                status.state,
                PreparationState::Preparing | PreparationState::Queued
            ) {
                return Some(status);
            }
        }
    }
}
