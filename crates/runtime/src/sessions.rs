//! The Runtime's prepared Sessions and their running Turns.
//!
//! A prepared Session holds its executor. An executor is evictable: after `idle_timeout` with no
//! Turn running, the Runtime evicts it, which ends the native process and keeps its state on
//! disk; the next Turn resumes it (resume-and-acp §1, §4). Each idle period arms one timer task;
//! starting a Turn or releasing the Session aborts it, so a timer never races a new Turn into
//! eviction (and if it did, the executor refuses to evict a busy Session).
//!
//! A running Turn is known by its Run ID. Its control arrives once `start_turn` returns, which is
//! after the frame loop has moved on; frames for the Run that arrive meanwhile wait for it (or
//! learn that the start failed) through a `watch` channel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_protocol::SessionExecutor;
use switchboard_protocol::adapter::TurnControlRef;
use tokio::sync::{broadcast, watch};
use tokio::task::AbortHandle;

/// Something the Runtime did on its own, for observers (tests, logs). Nothing depends on it
/// being received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// An idle Session's native process was ended; its state stays on disk.
    Evicted { session_id: String },
}

struct Session {
    executor: Arc<dyn SessionExecutor>,
    idle_timer: Option<AbortHandle>,
}

/// A Run's control, or `None` while its Turn is starting. A dropped sender means the start
/// failed or the Turn ended.
pub type ControlSlot = watch::Receiver<Option<TurnControlRef>>;

#[derive(Clone)]
pub struct Sessions {
    inner: Arc<Mutex<Tables>>,
    idle_timeout: Duration,
    notices: broadcast::Sender<Notice>,
}

#[derive(Default)]
struct Tables {
    sessions: HashMap<String, Session>,
    runs: HashMap<String, ControlSlot>,
}

impl Sessions {
    pub fn new(idle_timeout: Duration, notices: broadcast::Sender<Notice>) -> Self {
        Sessions {
            inner: Arc::default(),
            idle_timeout,
            notices,
        }
    }

    fn tables(&self) -> std::sync::MutexGuard<'_, Tables> {
        // A panic while holding this lock leaves plain maps behind, still consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn executor(&self, session_id: &str) -> Option<Arc<dyn SessionExecutor>> {
        self.tables()
            .sessions
            .get(session_id)
            .map(|s| s.executor.clone())
    }

    /// Keeps a prepared executor and starts its idle period.
    pub fn insert(&self, session_id: &str, executor: Arc<dyn SessionExecutor>) {
        let previous = self.tables().sessions.insert(
            session_id.to_owned(),
            Session {
                executor,
                idle_timer: None,
            },
        );
        if let Some(timer) = previous.and_then(|s| s.idle_timer) {
            timer.abort();
        }
        self.arm_idle_timer(session_id);
    }

    /// Forgets a Session, returning its executor for the caller to shut down.
    pub fn remove(&self, session_id: &str) -> Option<Arc<dyn SessionExecutor>> {
        let session = self.tables().sessions.remove(session_id)?;
        if let Some(timer) = session.idle_timer {
            timer.abort();
        }
        Some(session.executor)
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

    /// The Session is busy: no eviction until [`Sessions::turn_ended`].
    pub fn turn_started(&self, session_id: &str) {
        if let Some(timer) = self
            .tables()
            .sessions
            .get_mut(session_id)
            .and_then(|s| s.idle_timer.take())
        {
            timer.abort();
        }
    }

    pub fn turn_ended(&self, session_id: &str) {
        self.arm_idle_timer(session_id);
    }

    fn arm_idle_timer(&self, session_id: &str) {
        let mut tables = self.tables();
        let Some(session) = tables.sessions.get_mut(session_id) else {
            return;
        };
        let executor = session.executor.clone();
        let (idle, notices, id) = (
            self.idle_timeout,
            self.notices.clone(),
            session_id.to_owned(),
        );
        let task = tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            // Only the wait is abortable: the eviction itself runs detached, so a Turn starting
            // now cannot cut a process shutdown in half (it waits for the executor instead).
            tokio::spawn(async move {
                // Busy means a Turn started meanwhile; it re-arms the timer when it ends.
                if executor.is_resident() && executor.evict().await.is_ok() {
                    tracing::debug!(session_id = %id, "evicted an idle session");
                    let _ = notices.send(Notice::Evicted { session_id: id });
                }
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
}
