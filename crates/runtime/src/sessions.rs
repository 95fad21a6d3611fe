//! The Runtime's prepared Sessions, their running Turns, and the bound on live processes.
//!
//! A prepared Session holds its executor. An executor is evictable: it ends the native process
//! and keeps its state on disk, and the next Turn resumes it (resume-and-acp §1, §4). An evicted
//! Session costs one table entry and its executor's configuration, no process.
//!
//! At most `max_live` Sessions hold a process slot at once. Preparing launches the process
//! (both adapters open the native session then), so a preparation takes a slot too. A Turn
//! whose Session holds none, or a preparation, joins a queue; the head of the queue takes a
//! free slot, or evicts the least recently used idle holder and takes its slot once the process
//! has ended. A Session is busy (never evicted)
//! from its Turn's start until the Turn's terminal event, which covers a Turn waiting on a
//! function result. With every slot busy the queue waits, in order, until a Turn ends; a queued
//! Turn never fails for want of a slot, and can be cancelled; a waiting preparation reports
//! `queued` to Core, whose bound on preparing does not count the wait. A slot is counted from its grant
//! until its process is known gone, so the live processes never exceed the bound.
//!
//! Sessions sharing one harness process (Codex threads on one app-server,
//! `--share-harness-processes`) count as that one process: [`SessionExecutor::shared_process`]
//! names it, and every slot holder naming the same process counts once. Evicting one of them
//! frees nothing while the others hold the process, so only Sessions whose eviction can free a
//! process are victims (an own process, or a shared one none of whose Sessions is busy); the
//! queue then evicts them one by one, least recently used first, until the process ends with its
//! last thread. A Session about to join a shared process counts as a new process until it holds
//! its thread (the Runtime cannot know beforehand that it will share), which errs on the side
//! of fewer processes.
//!
//! Warm processes ([`crate::warm`]) hold slots in the same table: the head of the queue ends
//! one before it evicts an idle Session, and waits for one still launching rather than evict.
//!
//! A holder idle for `idle_timeout` is evicted too. Each idle period arms one timer task; a Turn
//! starting or the Session being released aborts it.
//!
//! A running Turn is known by its Run ID. Its control arrives once `start_turn` returns, which is
//! after the frame loop has moved on; frames for the Run that arrive meanwhile wait for it (or
//! learn that the start failed) through a `watch` channel.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_codex::warm::{WarmKey, WarmProcess};
use switchboard_protocol::SessionExecutor;
use switchboard_protocol::adapter::{AdapterError, TurnControlRef};
use tokio::sync::{broadcast, watch};
use tokio::task::AbortHandle;

use crate::warm::{Reserve, Stock};

/// Something the Runtime did on its own, for observers (tests, logs). Nothing depends on it
/// being received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// An idle Session's native process was ended; its state stays on disk.
    Evicted { session_id: String },
    /// A Turn waits for a process slot (every slot is held by a busy Session), or for a
    /// launch permit to relaunch its evicted Session's process.
    Queued { run_id: String },
    /// A warm harness process is started, initialized and waits for a Session.
    Warmed { pid: u32 },
    /// A Session's preparation took the warm process `pid` instead of launching one.
    BoundWarm { session_id: String, pid: u32 },
    /// A warm process was ended to give its slot to a Turn or a preparation.
    Shed { pid: u32 },
}

/// Whether a Session counts against the live-process bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    None,
    Held,
    /// Its process is being ended; the slot frees when that is done.
    Evicting,
}

struct Session {
    executor: Arc<dyn SessionExecutor>,
    /// The harness's name, the label of its figures.
    harness: &'static str,
    idle_timer: Option<AbortHandle>,
    slot: Slot,
    busy: bool,
    /// When a Turn last started or ended on it, on the table's clock (for LRU eviction).
    last_used: u64,
}

/// A Run's control, or `None` while its Turn is starting. A dropped sender means the start
/// failed or the Turn ended.
pub type ControlSlot = watch::Receiver<Option<TurnControlRef>>;

/// How a Turn's wait for a process slot ended.
pub enum Admission {
    /// The Session holds a slot and is busy: start the Turn, then call [`Sessions::turn_ended`].
    Granted(Arc<dyn SessionExecutor>),
    /// The queued Turn was cancelled.
    Cancelled,
    /// The Session was released (or never prepared).
    Gone,
}

#[derive(Clone)]
pub struct Sessions {
    inner: Arc<Mutex<Tables>>,
    idle_timeout: Duration,
    max_live: usize,
    notices: broadcast::Sender<Notice>,
    /// Bumped whenever a slot may have freed or the queue changed.
    changed: Arc<watch::Sender<()>>,
}

#[derive(Default)]
struct Tables {
    sessions: HashMap<String, Session>,
    runs: HashMap<String, ControlSlot>,
    /// Run IDs of Turns waiting for a slot, first come first served.
    queue: VecDeque<String>,
    /// Slots held by preparations in flight (preparing launches the process).
    reserved: usize,
    /// The warm pool's processes and slots.
    warm: Stock,
    clock: u64,
}

impl Tables {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Live processes: each holder's own, each shared process once, each reservation, each
    /// warm one.
    fn live(&self) -> usize {
        let mut shared = HashSet::new();
        let mut own = 0;
        for session in self.sessions.values().filter(|s| s.slot != Slot::None) {
            match session.executor.shared_process() {
                Some(pid) => {
                    shared.insert(pid);
                }
                None => own += 1,
            }
        }
        own + shared.len() + self.reserved + self.warm.held()
    }

    /// The shared processes a busy Session holds: evicting another Session on one frees nothing.
    fn busy_shared(&self) -> HashSet<u32> {
        self.sessions
            .values()
            .filter(|s| s.busy)
            .filter_map(|s| s.executor.shared_process())
            .collect()
    }
}

/// What a wait for a slot got.
enum Granted {
    Session(Arc<dyn SessionExecutor>),
    Reservation,
    Cancelled,
    Gone,
}

/// The queue key of a Session's preparation (Run IDs never hold a space).
fn preparation_key(session_id: &str) -> String {
    format!("prepare {session_id}")
}

/// The queue key of a Session's release that needs a process slot.
fn release_key(session_id: &str) -> String {
    format!("release {session_id}")
}

/// What the head of the queue does next.
enum Step {
    Done(Granted),
    /// It waits behind others or for a busy slot (reported once as [`Notice::Queued`]).
    Wait,
    Evict(String, Arc<dyn SessionExecutor>),
    /// End this warm process: its slot goes to the head of the queue.
    Shed(Box<WarmProcess>),
}

impl Sessions {
    pub fn new(
        idle_timeout: Duration,
        max_live: usize,
        notices: broadcast::Sender<Notice>,
    ) -> Self {
        Sessions {
            inner: Arc::default(),
            idle_timeout,
            max_live: max_live.max(1),
            notices,
            changed: Arc::new(watch::channel(()).0),
        }
    }

    fn tables(&self) -> std::sync::MutexGuard<'_, Tables> {
        // A panic while holding this lock leaves plain maps behind, still consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wake(&self) {
        self.changed.send_replace(());
        self.report_processes();
    }

    /// Sets the live harness processes gauge, by harness, from the executors' residency (a
    /// slot changed, or a Turn relaunched its process).
    pub fn report_processes(&self) {
        let mut counts: HashMap<&'static str, u32> = switchboard_protocol::HarnessId::ALL
            .iter()
            .map(|h| (h.as_str(), 0))
            .collect();
        // A shared process counts once, however many Sessions it hosts.
        let mut shared = HashSet::new();
        for session in self.tables().sessions.values() {
            let counted = match session.executor.shared_process() {
                Some(pid) => shared.insert(pid),
                None => session.executor.is_resident(),
            };
            if counted {
                *counts.entry(session.harness).or_default() += 1;
            }
        }
        for (harness, n) in counts {
            metrics::gauge!(crate::metrics::HARNESS_PROCESSES, "harness" => harness)
                .set(f64::from(n));
        }
    }

    /// The harness of a prepared Session.
    pub fn harness(&self, session_id: &str) -> Option<&'static str> {
        self.tables().sessions.get(session_id).map(|s| s.harness)
    }

    pub fn executor(&self, session_id: &str) -> Option<Arc<dyn SessionExecutor>> {
        self.tables()
            .sessions
            .get(session_id)
            .map(|s| s.executor.clone())
    }

    /// Keeps a prepared executor; the slot reserved for its preparation becomes its own while
    /// it holds the process the preparation launched, and its idle period starts.
    pub fn insert(
        &self,
        session_id: &str,
        harness: &'static str,
        executor: Arc<dyn SessionExecutor>,
    ) {
        let mut tables = self.tables();
        tables.reserved = tables.reserved.saturating_sub(1);
        let now = tables.tick();
        let slot = if executor.is_resident() {
            Slot::Held
        } else {
            Slot::None
        };
        let previous = tables.sessions.insert(
            session_id.to_owned(),
            Session {
                executor,
                harness,
                idle_timer: None,
                slot,
                busy: false,
                last_used: now,
            },
        );
        drop(tables);
        if let Some(timer) = previous.and_then(|s| s.idle_timer) {
            timer.abort();
        }
        self.arm_idle_timer(session_id);
        self.wake();
    }

    /// Forgets a Session, returning its executor; its slot frees now.
    fn remove(&self, session_id: &str) -> Option<Arc<dyn SessionExecutor>> {
        let session = self.tables().sessions.remove(session_id)?;
        if let Some(timer) = session.idle_timer {
            timer.abort();
        }
        self.wake();
        Some(session.executor)
    }

    /// Forgets a Session for good (its release), ending its process first while its slot stays
    /// counted, so a queued Turn never launches a process before this one is gone. A release
    /// that starts a process ([`SessionExecutor::release_starts_process`]) first waits for a
    /// slot in the queue, as a Turn does. `None` when the Session is not here; an evict refused
    /// because a Turn runs leaves that Turn the last holder of the executor (its process ends
    /// with the Turn).
    pub async fn release(&self, session_id: &str) -> Option<Result<(), AdapterError>> {
        let starts_process = {
            let tables = self.tables();
            let session = tables.sessions.get(session_id)?;
            session.slot != Slot::Held && session.executor.release_starts_process()
        };
        if starts_process {
            let key = release_key(session_id);
            self.tables().queue.push_back(key.clone());
            let none = None::<std::future::Ready<()>>;
            if let (Granted::Gone | Granted::Cancelled, _) =
                self.wait_for_slot(&key, Some(session_id), none).await
            {
                return None;
            }
        }
        let (executor, may_start_process) = {
            let mut tables = self.tables();
            let session = tables.sessions.get_mut(session_id)?;
            if let Some(timer) = session.idle_timer.take() {
                timer.abort();
            }
            let held = session.slot == Slot::Held;
            if held && !session.busy {
                session.slot = Slot::Evicting;
            }
            (session.executor.clone(), held || starts_process)
        };
        // Without a slot the release starts no process, even when the one it was to join has
        // died since it was asked ([`SessionExecutor::release`]).
        let evicted = executor.release(may_start_process).await;
        self.remove(session_id);
        Some(evicted)
    }

    /// Every Session (for shutdown).
    pub fn drain(&self) -> Vec<Arc<dyn SessionExecutor>> {
        let sessions = std::mem::take(&mut self.tables().sessions);
        sessions
            .into_values()
            .map(|s| {
                if let Some(timer) = s.idle_timer {
                    timer.abort();
                }
                s.executor
            })
            .collect()
    }

    /// Queues a Turn of `run_id` for a slot. Call before [`Sessions::admit`], synchronously
    /// with the `execution_start` frame, so that a cancel arriving next finds it queued.
    pub fn enqueue(&self, run_id: &str) {
        self.tables().queue.push_back(run_id.to_owned());
    }

    /// Cancels a Turn still waiting for a slot; `false` when it is not queued (it started, or
    /// never was).
    pub fn cancel_queued(&self, run_id: &str) -> bool {
        let mut tables = self.tables();
        let before = tables.queue.len();
        tables.queue.retain(|r| r != run_id);
        let cancelled = tables.queue.len() != before;
        drop(tables);
        if cancelled {
            self.wake();
        }
        cancelled
    }

    /// Waits until the Session of the queued Run `run_id` holds a process slot, evicting the
    /// least recently used idle holder when none is free, and marks it busy.
    pub async fn admit(&self, session_id: &str, run_id: &str) -> Admission {
        let (granted, _) = self
            .wait_for_slot(run_id, Some(session_id), None::<std::future::Ready<()>>)
            .await;
        match granted {
            Granted::Session(executor) => Admission::Granted(executor),
            Granted::Reservation => Admission::Gone,
            Granted::Cancelled => Admission::Cancelled,
            Granted::Gone => Admission::Gone,
        }
    }

    /// Waits for a slot for a preparation of `session_id` (preparing launches the harness
    /// process). The slot is reserved until [`Sessions::insert`] keeps the prepared executor
    /// or [`Sessions::preparation_failed`] gives it back. When it has to wait behind busy
    /// slots, `queued` runs first (the Runtime tells Core, whose preparation bound must not
    /// count the wait). Whether it waited.
    pub async fn reserve_for_preparation(
        &self,
        session_id: &str,
        queued: impl Future<Output = ()>,
    ) -> bool {
        let key = preparation_key(session_id);
        self.tables().queue.push_back(key.clone());
        let (_, waited) = self.wait_for_slot(&key, None, Some(queued)).await;
        waited
    }

    /// A preparation that held a reserved slot failed: the slot is free again.
    pub fn preparation_failed(&self) {
        let mut tables = self.tables();
        tables.reserved = tables.reserved.saturating_sub(1);
        drop(tables);
        self.wake();
    }

    /// Waits for `key`'s slot; `queued` runs once if it has to wait. The grant, and whether
    /// it waited.
    async fn wait_for_slot(
        &self,
        key: &str,
        session_id: Option<&str>,
        mut queued: Option<impl Future<Output = ()>>,
    ) -> (Granted, bool) {
        let mut announced = false;
        loop {
            // Subscribed before looking, so a change made after the look wakes this wait.
            let mut changed = self.changed.subscribe();
            match self.step(key, session_id) {
                Step::Done(granted) => {
                    self.wake();
                    return (granted, announced);
                }
                Step::Wait => {
                    if !announced {
                        announced = true;
                        if session_id.is_some() {
                            self.report_queued(key);
                        }
                        if let Some(queued) = queued.take() {
                            queued.await;
                            // A slot may have freed meanwhile: look again before waiting.
                            continue;
                        }
                    }
                    // The sender lives as long as `self`.
                    let _ = changed.changed().await;
                }
                Step::Evict(victim, executor) => self.evict(&victim, &executor).await,
                Step::Shed(process) => {
                    let pid = process.pid().unwrap_or_default();
                    self.end_warm(*process).await;
                    let _ = self.notices.send(Notice::Shed { pid });
                }
            }
        }
    }

    /// Tells observers that the Turn of `run_id` waits (for a slot, or to launch its process).
    pub fn report_queued(&self, run_id: &str) {
        let run_id = run_id.to_owned();
        let _ = self.notices.send(Notice::Queued { run_id });
    }

    /// One look at the queue for `key` (a Run ID, or a preparation's key when `session_id` is
    /// `None`).
    fn step(&self, key: &str, session_id: Option<&str>) -> Step {
        let mut tables = self.tables();
        let Some(position) = tables.queue.iter().position(|r| r == key) else {
            return Step::Done(Granted::Cancelled);
        };
        let now = tables.tick();
        let grant = |session: &mut Session| {
            session.slot = Slot::Held;
            session.busy = true;
            session.last_used = now;
            if let Some(timer) = session.idle_timer.take() {
                timer.abort();
            }
            Granted::Session(session.executor.clone())
        };
        if let Some(id) = session_id {
            let Some(session) = tables.sessions.get_mut(id) else {
                tables.queue.remove(position);
                return Step::Done(Granted::Gone);
            };
            // Its process (or the right to launch one) is already counted.
            if session.slot == Slot::Held {
                let granted = grant(session);
                tables.queue.remove(position);
                return Step::Done(granted);
            }
        }
        if position != 0 {
            return Step::Wait;
        }
        if tables.live() >= self.max_live {
            // A holder whose process ended on its own frees its slot without an eviction.
            for other in tables.sessions.values_mut() {
                if other.slot == Slot::Held && !other.busy && !other.executor.is_resident() {
                    other.slot = Slot::None;
                }
            }
        }
        if tables.live() >= self.max_live {
            // A warm process is the cheapest slot to give up; one still launching soon is.
            if let Some(process) = tables.warm.take_to_shed() {
                return Step::Shed(Box::new(process));
            }
            if tables.warm.is_launching() {
                return Step::Wait;
            }
        }
        if tables.live() < self.max_live {
            let granted = match session_id {
                Some(id) => match tables.sessions.get_mut(id) {
                    Some(session) => grant(session),
                    None => Granted::Gone,
                },
                None => {
                    tables.reserved += 1;
                    Granted::Reservation
                }
            };
            tables.queue.pop_front();
            return Step::Done(granted);
        }
        let busy_shared = tables.busy_shared();
        let victim = tables
            .sessions
            .iter_mut()
            .filter(|(_, s)| s.slot == Slot::Held && !s.busy)
            .filter(|(_, s)| {
                s.executor
                    .shared_process()
                    .is_none_or(|pid| !busy_shared.contains(&pid))
            })
            .min_by_key(|(_, s)| s.last_used);
        match victim {
            Some((id, victim)) => {
                victim.slot = Slot::Evicting;
                if let Some(timer) = victim.idle_timer.take() {
                    timer.abort();
                }
                Step::Evict(id.clone(), victim.executor.clone())
            }
            None => Step::Wait,
        }
    }

    /// Ends the process of `session_id`, which is marked [`Slot::Evicting`], then frees its slot.
    async fn evict(&self, session_id: &str, executor: &Arc<dyn SessionExecutor>) {
        let evicted = executor.evict().await.is_ok();
        if let Some(session) = self.tables().sessions.get_mut(session_id) {
            if session.slot == Slot::Evicting {
                // A refusal (a Turn runs) keeps the process, and so the slot.
                session.slot = if evicted { Slot::None } else { Slot::Held };
            }
            if evicted {
                metrics::counter!(crate::metrics::HARNESS_EVICTIONS, "harness" => session.harness)
                    .increment(1);
            }
        }
        self.wake();
        if evicted {
            tracing::debug!(session_id, "evicted a session's harness process");
            let session_id = session_id.to_owned();
            let _ = self.notices.send(Notice::Evicted { session_id });
        }
    }

    /// The Session's Turn ended: it is idle, evictable, and its idle period starts.
    pub fn turn_ended(&self, session_id: &str) {
        let mut tables = self.tables();
        let now = tables.tick();
        if let Some(session) = tables.sessions.get_mut(session_id) {
            session.busy = false;
            session.last_used = now;
            // The Turn may have ended the process (a crash, a discarded process).
            if session.slot == Slot::Held && !session.executor.is_resident() {
                session.slot = Slot::None;
            }
        }
        drop(tables);
        self.arm_idle_timer(session_id);
        self.wake();
    }

    fn arm_idle_timer(&self, session_id: &str) {
        let mut tables = self.tables();
        let Some(session) = tables.sessions.get_mut(session_id) else {
            return;
        };
        if session.slot != Slot::Held || session.busy {
            return;
        }
        let (this, id) = (self.clone(), session_id.to_owned());
        let task = tokio::spawn(async move {
            tokio::time::sleep(this.idle_timeout).await;
            // Only the wait is abortable: the eviction itself runs detached, so a Turn starting
            // now cannot cut a process shutdown in half (it queues for the slot instead).
            tokio::spawn(async move {
                let executor = {
                    let mut tables = this.tables();
                    let Some(session) = tables.sessions.get_mut(&id) else {
                        return;
                    };
                    if session.slot != Slot::Held || session.busy {
                        return;
                    }
                    session.slot = Slot::Evicting;
                    session.idle_timer = None;
                    session.executor.clone()
                };
                this.evict(&id, &executor).await;
            });
        });
        if let Some(old) = session.idle_timer.replace(task.abort_handle()) {
            old.abort();
        }
    }

    /// Registers a starting Run; the returned sender publishes its control.
    pub fn run_starting(&self, run_id: &str) -> Option<watch::Sender<Option<TurnControlRef>>> {
        let mut tables = self.tables();
        if tables.runs.contains_key(run_id) {
            return None;
        }
        let (tx, rx) = watch::channel(None);
        tables.runs.insert(run_id.to_owned(), rx);
        Some(tx)
    }

    pub fn run_finished(&self, run_id: &str) {
        self.tables().runs.remove(run_id);
    }

    /// The control of a running Run, waiting while it starts. `None` when no such Turn runs.
    pub async fn control(&self, run_id: &str) -> Option<TurnControlRef> {
        let mut slot = self.tables().runs.get(run_id)?.clone();
        let control = slot.wait_for(Option::is_some).await.ok()?;
        control.clone()
    }

    /// One step of a warm refill for `key` ([`Stock::reserve`]): a launch only into a free
    /// slot that no Turn or preparation waits for.
    pub fn reserve_warm(&self, key: &WarmKey, size: usize) -> Reserve {
        let mut tables = self.tables();
        let free = tables.queue.is_empty() && tables.live() < self.max_live;
        tables.warm.reserve(key, size, free)
    }

    /// A warm launch for `key` ended, with its process if it started.
    pub async fn warm_landed(&self, key: &WarmKey, process: Option<WarmProcess>) {
        let pid = process.as_ref().and_then(WarmProcess::pid);
        let refused = self.tables().warm.landed(key, process);
        match refused {
            Some(process) => self.end_warm(process).await,
            None => {
                self.wake();
                if let Some(pid) = pid {
                    let _ = self.notices.send(Notice::Warmed { pid });
                }
            }
        }
    }

    /// Releases the launch hold that taking a warm process set ([`crate::warm::Stock::take`]).
    pub fn release_warm_hold(&self) {
        self.tables().warm.release_hold();
        self.wake();
    }

    /// Ends a warm process taken out of the pool, then frees its slot.
    pub async fn end_warm(&self, process: WarmProcess) {
        process.end().await;
        self.tables().warm.ended();
        self.wake();
    }

    /// Takes a ready warm process of `key` for a preparation of `session_id`, waiting for one
    /// of `key` still launching; its slot becomes the preparation's reservation (kept by
    /// [`Sessions::insert`] or given back by [`Sessions::preparation_failed`]). `None`: no
    /// process of `key` is there, and the preparation launches its own.
    pub async fn take_warm(&self, session_id: &str, key: &WarmKey) -> Option<WarmProcess> {
        loop {
            let mut changed = self.changed.subscribe();
            let (found, dead, launching) = {
                let mut tables = self.tables();
                let (found, dead) = tables.warm.take(key);
                if found.is_some() {
                    tables.reserved += 1;
                }
                (found, dead, tables.warm.is_launching_for(key))
            };
            for process in dead {
                self.end_warm(process).await;
            }
            if let Some(process) = found {
                let pid = process.pid().unwrap_or_default();
                let session_id = session_id.to_owned();
                let _ = self.notices.send(Notice::BoundWarm { session_id, pid });
                self.wake();
                return Some(process);
            }
            if !launching {
                return None;
            }
            let _ = changed.changed().await;
        }
    }

    /// The pool's ready processes, for shutdown (a launch that lands later is ended then).
    pub fn drain_warm(&self) -> Vec<WarmProcess> {
        self.tables().warm.close()
    }

    /// Live harness processes (held or being ended; a shared one once), for observers.
    pub fn live(&self) -> usize {
        self.tables().live()
    }
}
