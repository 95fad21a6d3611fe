//! The warm pool: a few started, initialized harness processes that belong to no Session yet,
//! so that a new Session's preparation does not wait for its harness to start.
//!
//! Only Codex has them: its app-server takes a Session's per-thread settings after start
//! (`codex/src/warm.rs` says which, and which Sessions cannot be warm). Claude Code takes nearly
//! everything as process flags, so a process started ahead would serve no Session
//! (`docs/benchmarks.md`, issue 18).
//!
//! - **Keyed.** A warm process carries one Session's process-wide settings (its
//!   [`WarmKey`]: binary, `-c` overrides, provider key) and is bound only to a Session with the
//!   same key. After a Session is prepared, the pool refills to `warm_harnesses` processes of
//!   that Session's key, the most recently seen one; a process of an older key is ended to make
//!   room for it.
//! - **Counted.** Each warm process holds one of the Runtime's `max_live_harnesses` slots from
//!   its launch until it has ended, in the same table as the Sessions' ([`crate::sessions`]),
//!   so the live processes never exceed the bound. The pool launches only into a free slot
//!   nobody waits for, and gives a slot up at once when a Turn or a preparation needs one: the
//!   queue's head ends a warm process before it evicts any idle Session (which would cost that
//!   Session a cold resume), and one that has exited on its own before a live one; a refill
//!   ends an exited one first, to replace it.
//! - **Bound, not shared.** Binding moves the process and its slot to the Session, whose state
//!   directory becomes a link to the one the process started in; the Session's executor then
//!   owns the process as if it had launched it. A warm process that has exited is discarded,
//!   never bound, and the Session launches as it would without a pool.
//! - **Refilled after the first Turn.** A Session bound to a warm process starts its first Turn
//!   at once; a replacement codex starting and initializing beside that Turn took CPU from it
//!   (on 2 CPUs the bound Session's first Turn was 0.60–0.65 of a direct start with the refill
//!   at binding, 0.51–0.54 with it after the Turn: `docs/benchmarks.md`). So the refill for a
//!   warm-bound Session waits until its first Turn ends, or [`REFILL_DELAY`] for a Session that
//!   gets no Turn, and while any such Session waits the pool launches nothing (taking a process
//!   sets the hold, under the slot table's lock, so a refill already running stops too). A
//!   cold-prepared Session refills at once: its own launch is done.
//! - **Real processes.** Each is an adapter-kit `HarnessChild` (its own process group, killed
//!   with it); the pool's are ended at Runtime shutdown, and their folders, under
//!   `<state_root>/.warm`, removed (a folder left by a Runtime that died is removed at the next
//!   start unless a Session's state links to it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_codex::CodexAdapter;
use switchboard_codex::warm::{self as codex_warm, WarmKey, WarmProcess};
use switchboard_protocol::{AdapterError, PrepareRequest, SessionExecutor};
use tokio::sync::{Notify, Semaphore};

use crate::sessions::Sessions;

/// How long a warm-bound Session's refill waits for its first Turn to end before it goes ahead.
pub const REFILL_DELAY: Duration = Duration::from_secs(5);

/// The pool's folder in the state root (a Session id never starts with a dot).
pub const POOL_DIR: &str = ".warm";

/// The warm processes in the slot table: ready ones (oldest first), and the slots held by
/// launches in flight and by processes being ended.
#[derive(Default)]
pub struct Stock {
    ready: Vec<WarmProcess>,
    launching: Vec<WarmKey>,
    ending: usize,
    closed: bool,
    /// Processes taken for a Session whose first Turn has not ended yet: no launch until then.
    held_back: usize,
}

impl Stock {
    /// Slots the pool holds.
    pub fn held(&self) -> usize {
        self.ready.len() + self.launching.len() + self.ending
    }

    /// Ready processes.
    pub fn ready(&self) -> usize {
        self.ready.len()
    }

    /// Whether a launch is in flight (its slot frees or becomes a ready process soon).
    pub fn is_launching(&self) -> bool {
        !self.launching.is_empty()
    }

    /// Whether a launch for `key` is in flight.
    pub fn is_launching_for(&self, key: &WarmKey) -> bool {
        self.launching.contains(key)
    }

    /// Processes of `key`, ready or launching.
    fn count(&self, key: &WarmKey) -> usize {
        self.ready.iter().filter(|w| w.key() == key).count()
            + self.launching.iter().filter(|k| *k == key).count()
    }

    /// Takes a ready process of `key`, its slot still counted (the caller moves it on), and
    /// holds launches back until [`Stock::release_hold`]. Exited ones met on the way are
    /// returned too, their slots counted as ending.
    pub fn take(&mut self, key: &WarmKey) -> (Option<WarmProcess>, Vec<WarmProcess>) {
        let mut dead = Vec::new();
        let mut found = None;
        let mut i = 0;
        while i < self.ready.len() {
            if self.ready[i].key() != key {
                i += 1;
                continue;
            }
            if self.ready[i].has_exited() {
                dead.push(self.take_to_end(i));
                continue;
            }
            found = Some(self.ready.remove(i));
            self.held_back += 1;
            break;
        }
        (found, dead)
    }

    /// A Session that took a process has had its first Turn (or will not get one soon, or its
    /// preparation failed): launches may go on once no other such Session is waiting.
    pub fn release_hold(&mut self) {
        self.held_back = self.held_back.saturating_sub(1);
    }

    /// Takes a ready process to give its slot up: one that has exited on its own if there is
    /// one (it holds a slot and serves nobody), else the oldest.
    pub fn take_to_shed(&mut self) -> Option<WarmProcess> {
        if self.ready.is_empty() {
            return None;
        }
        let i = self.exited().unwrap_or(0);
        Some(self.take_to_end(i))
    }

    /// Takes the ready process at `i` to end it, its slot counted as ending until
    /// [`Stock::ended`].
    fn take_to_end(&mut self, i: usize) -> WarmProcess {
        self.ending += 1;
        self.ready.remove(i)
    }

    /// The position of a ready process that has exited on its own.
    fn exited(&mut self) -> Option<usize> {
        self.ready.iter_mut().position(WarmProcess::has_exited)
    }

    /// A process taken to be ended has ended: its slot is free.
    pub fn ended(&mut self) {
        self.ending = self.ending.saturating_sub(1);
    }

    /// Every ready process, for shutdown; launches that land later are ended at once.
    pub fn close(&mut self) -> Vec<WarmProcess> {
        self.closed = true;
        self.ending += self.ready.len();
        std::mem::take(&mut self.ready)
    }
}

/// Keeps the pool filled: which key, how many, launching into free slots.
pub struct Warmer {
    codex: Option<Arc<CodexAdapter>>,
    size: usize,
    pool: PathBuf,
    sessions: Sessions,
    launches: Arc<Semaphore>,
    /// Names this Runtime's folders apart from any earlier one's (a pid can repeat).
    prefix: String,
    next: AtomicU64,
    /// Warm-bound Sessions whose first Turn holds back a refill.
    deferred: Mutex<HashMap<String, Arc<Notify>>>,
}

impl Warmer {
    /// A pool of `size` processes of `codex` (none without it, or with `size` 0) in
    /// `<state_root>/.warm`. Folders a previous Runtime left there are removed, except those a
    /// Session's state links to.
    pub fn new(
        codex: Option<Arc<CodexAdapter>>,
        size: usize,
        state_root: &Path,
        sessions: Sessions,
        launches: Arc<Semaphore>,
    ) -> Warmer {
        let pool = state_root.join(POOL_DIR);
        sweep(state_root, &pool);
        Warmer {
            codex: codex.filter(|_| size > 0),
            size,
            pool,
            sessions,
            launches,
            prefix: format!(
                "w{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            ),
            next: AtomicU64::new(0),
            deferred: Mutex::default(),
        }
    }

    /// The key of a Session about to be prepared, when it could run on a warm process: a
    /// Codex Session that [`WarmKey::of`] accepts, whose state directory does not exist yet (a
    /// Session with state resumes it on its own process).
    pub fn key(&self, request: &PrepareRequest) -> Option<WarmKey> {
        let codex = self.codex.as_ref()?;
        if request.configuration.harness != switchboard_protocol::HarnessId::Codex
            || request.state_dir.symlink_metadata().is_ok()
        {
            return None;
        }
        WarmKey::of(codex, request)
    }

    /// Prepares `request` on `warm` (its slot is the preparation's reservation already).
    pub async fn prepare(
        &self,
        request: PrepareRequest,
        warm: WarmProcess,
    ) -> Result<Box<dyn SessionExecutor>, AdapterError> {
        let Some(codex) = &self.codex else {
            warm.end().await;
            return Err(AdapterError::Unavailable("no warm pool".into()));
        };
        codex_warm::prepare(codex, request, warm).await
    }

    /// [`Warmer::refill`] for a Session just bound to a warm process, once its first Turn has
    /// ended ([`Warmer::turn_ended`]) or after [`REFILL_DELAY`], whichever comes first. Taking
    /// the process held every launch back ([`Stock::take`]); this releases that hold.
    pub fn refill_after_first_turn(self: &Arc<Self>, session_id: &str, key: WarmKey) {
        let ended = Arc::new(Notify::new());
        self.deferred_held()
            .insert(session_id.to_owned(), ended.clone());
        let this = self.clone();
        let session_id = session_id.to_owned();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(REFILL_DELAY, ended.notified()).await;
            this.deferred_held().remove(&session_id);
            this.sessions.release_warm_hold();
            this.refill(key);
        });
    }

    /// A Turn of `session_id` ended: a refill its binding held back goes ahead.
    pub fn turn_ended(&self, session_id: &str) {
        if let Some(ended) = self.deferred_held().remove(session_id) {
            // A permit is stored when the waiter has not started waiting yet.
            ended.notify_one();
        }
    }

    fn deferred_held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Notify>>> {
        self.deferred.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refills the pool with processes of `key`, in the background: one launch at a time, each
    /// into a slot that is free and that nobody waits for, with a launch permit that is free
    /// now (a busy Runtime's launches are its Sessions'). Processes of other keys make room
    /// when the pool is full.
    pub fn refill(self: &Arc<Self>, key: WarmKey) {
        if self.codex.is_none() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                let Ok(permit) = this.launches.clone().try_acquire_owned() else {
                    return;
                };
                match this.sessions.reserve_warm(&key, this.size) {
                    Reserve::Launch => {}
                    Reserve::Replace(old) => {
                        drop(permit);
                        this.sessions.end_warm(*old).await;
                        continue;
                    }
                    Reserve::Enough => return,
                }
                let n = this.next.fetch_add(1, Ordering::Relaxed);
                let dir = this.pool.join(format!("{}-{n}", this.prefix));
                let started = WarmProcess::start(key.clone(), dir.clone()).await;
                drop(permit);
                if let Err(error) = &started {
                    tracing::warn!(%error, "a warm codex process did not start");
                    let _ = tokio::fs::remove_dir_all(&dir).await;
                }
                let landed = started.is_ok();
                this.sessions.warm_landed(&key, started.ok()).await;
                if !landed {
                    return;
                }
            }
        });
    }
}

/// What the pool may do for a key.
pub enum Reserve {
    /// A slot is reserved for one more launch.
    Launch,
    /// End this one first: it exited on its own, or the pool is full with another key's
    /// processes.
    Replace(Box<WarmProcess>),
    /// The key has its processes, or no slot is free.
    Enough,
}

impl Stock {
    /// One step of a refill for `key`, to `size` processes, when `free` (a slot is free and
    /// nobody waits for one).
    pub fn reserve(&mut self, key: &WarmKey, size: usize, free: bool) -> Reserve {
        if self.closed {
            return Reserve::Enough;
        }
        // A process that exited on its own is ended first, so that the refill replaces it.
        if let Some(i) = self.exited() {
            return Reserve::Replace(Box::new(self.take_to_end(i)));
        }
        if self.held_back > 0 || self.count(key) >= size {
            return Reserve::Enough;
        }
        if self.held() >= size {
            let other = self.ready.iter().position(|w| w.key() != key);
            return match other {
                Some(i) => Reserve::Replace(Box::new(self.take_to_end(i))),
                None => Reserve::Enough,
            };
        }
        if !free {
            return Reserve::Enough;
        }
        self.launching.push(key.clone());
        Reserve::Launch
    }

    /// A launch for `key` ended; its process joins the ready ones, or is handed back to be
    /// ended (the pool closed meanwhile).
    pub fn landed(&mut self, key: &WarmKey, process: Option<WarmProcess>) -> Option<WarmProcess> {
        if let Some(i) = self.launching.iter().position(|k| k == key) {
            self.launching.remove(i);
        }
        let process = process?;
        if self.closed {
            self.ending += 1;
            return Some(process);
        }
        self.ready.push(process);
        None
    }
}

/// A Session's state directory is gone; when it was a link to a warm process's folder (the
/// Session was bound to one), that folder goes too.
pub fn remove_linked(state_dir: &Path) {
    let Ok(target) = std::fs::read_link(state_dir) else {
        return;
    };
    let _ = std::fs::remove_file(state_dir);
    if target.parent().and_then(Path::file_name) == Some(POOL_DIR.as_ref()) {
        let _ = std::fs::remove_dir_all(&target);
    }
}

/// Removes the pool folders no Session's state links to (by name: the links are canonical,
/// the state root may not be).
fn sweep(state_root: &Path, pool: &Path) {
    let Ok(entries) = std::fs::read_dir(pool) else {
        return;
    };
    let linked: Vec<std::ffi::OsString> = std::fs::read_dir(state_root)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter(|target| {
                    target.parent().and_then(Path::file_name) == Some(POOL_DIR.as_ref())
                })
                .filter_map(|target| target.file_name().map(ToOwned::to_owned))
                .collect()
        })
        .unwrap_or_default();
    for entry in entries.flatten() {
        if !linked.contains(&entry.file_name()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
