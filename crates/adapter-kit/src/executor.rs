//! The executor's process slot: one Session, at most one native process, one Turn at a time.
//!
//! A [`ProcessSlot`] holds the Session's resident process, if any, and whether a Turn is running.
//! The process may be evicted whenever no Turn runs (its state stays on disk, and the next Turn
//! launches a new process that resumes it); while a Turn runs, eviction and a second Turn are
//! refused with [`AdapterError::Busy`]. Starting a Turn checks the process's inbound channel out
//! to the Turn's driver ([`SlotGuard::begin_turn`]); when the Turn settles, the driver hands the
//! channel back ([`TurnExit::Idle`]) or says the process must go ([`TurnExit::Discard`], also
//! assumed when the driver vanished), and only then is the slot idle again. Whether a process is
//! resident can be read at any time without waiting for a running Turn.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use switchboard_protocol::{AdapterError, TurnControl, TurnHandle};
use tokio::sync::{Mutex, MutexGuard, mpsc, oneshot};

use crate::process::{self, HarnessChild, NativeProcess};
use crate::turn::{Release, TurnExit, TurnIo};

/// Events a Turn may buffer before its driver waits for the reader.
const EVENT_BUFFER: usize = 256;

/// A live process, without its inbound channel while a Turn's driver holds that. `child` is
/// `None` for a process the Session does not own (a thread on a process other Sessions share):
/// letting go of `connection` is then the whole discard, and the connection's owner decides
/// what happens to the process.
struct Resident<C, I> {
    child: Option<HarnessChild>,
    connection: Arc<C>,
    inbound: Option<mpsc::UnboundedReceiver<I>>,
}

struct State<C, I> {
    resident: Option<Resident<C, I>>,
    busy: bool,
}

struct Shared<C, I> {
    state: Mutex<State<C, I>>,
    /// Mirrors `state.resident.is_some()`, readable without the lock.
    resident: AtomicBool,
}

impl<C, I> Shared<C, I> {
    async fn discard(&self, state: &mut State<C, I>) {
        match state.resident.take() {
            Some(Resident {
                child: Some(child),
                connection,
                ..
            }) => process::end(child, connection).await,
            Some(Resident { connection, .. }) => drop(connection),
            None => {}
        }
        self.resident.store(false, Ordering::SeqCst);
    }
}

/// One Session's process slot. `C` is the adapter's connection to the process, `I` what the
/// connection's reader passes on.
pub struct ProcessSlot<C, I> {
    shared: Arc<Shared<C, I>>,
}

impl<C, I> Default for ProcessSlot<C, I> {
    fn default() -> Self {
        ProcessSlot {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    resident: None,
                    busy: false,
                }),
                resident: AtomicBool::new(false),
            }),
        }
    }
}

impl<C, I> ProcessSlot<C, I>
where
    C: Send + Sync + 'static,
    I: Send + 'static,
{
    /// Whether a process is held.
    pub fn is_resident(&self) -> bool {
        self.shared.resident.load(Ordering::SeqCst)
    }

    /// Waits for the slot (a starting Turn or an eviction may hold it briefly).
    pub async fn lock(&self) -> SlotGuard<'_, C, I> {
        SlotGuard {
            shared: &self.shared,
            state: self.shared.state.lock().await,
        }
    }

    /// Ends the process of an idle Session.
    pub async fn evict(&self) -> Result<(), AdapterError> {
        let mut slot = self.lock().await;
        slot.ensure_idle()?;
        slot.discard().await;
        Ok(())
    }
}

/// The locked slot.
pub struct SlotGuard<'a, C, I> {
    shared: &'a Arc<Shared<C, I>>,
    state: MutexGuard<'a, State<C, I>>,
}

impl<C, I> SlotGuard<'_, C, I>
where
    C: Send + Sync + 'static,
    I: Send + 'static,
{
    /// Fails with [`AdapterError::Busy`] while a Turn runs.
    pub fn ensure_idle(&self) -> Result<(), AdapterError> {
        if self.state.busy {
            Err(AdapterError::Busy)
        } else {
            Ok(())
        }
    }

    /// Whether a process is held.
    pub fn has_process(&self) -> bool {
        self.state.resident.is_some()
    }

    /// Discards a held process that has exited meanwhile, so that it is replaced rather than
    /// failing the next Turn.
    pub async fn discard_exited(&mut self) {
        let exited = self
            .state
            .resident
            .as_mut()
            .and_then(|r| r.child.as_mut())
            .is_some_and(|child| !matches!(child.try_wait(), Ok(None)));
        if exited {
            self.discard().await;
        }
    }

    /// Holds a newly launched process.
    pub fn install(&mut self, process: NativeProcess<C, I>) {
        let NativeProcess {
            child,
            connection,
            inbound,
        } = process;
        self.state.resident = Some(Resident {
            child: Some(child),
            connection,
            inbound: Some(inbound),
        });
        self.shared.resident.store(true, Ordering::SeqCst);
    }

    /// Holds a connection to a process the Session does not own (a thread on a shared
    /// process): discarding it drops `connection`, whose owner keeps the process for others.
    pub fn install_leased(&mut self, connection: Arc<C>, inbound: mpsc::UnboundedReceiver<I>) {
        self.state.resident = Some(Resident {
            child: None,
            connection,
            inbound: Some(inbound),
        });
        self.shared.resident.store(true, Ordering::SeqCst);
    }

    /// The held process's connection, if any (to ask it whether the process still lives).
    pub fn connection(&self) -> Option<&Arc<C>> {
        self.state.resident.as_ref().map(|r| &r.connection)
    }

    /// Ends the held process, if any.
    pub async fn discard(&mut self) {
        self.shared.discard(&mut self.state).await;
    }

    /// The held process's connection and inbound channel, for a Turn about to start: fails with
    /// [`AdapterError::Exited`] when there is no process, [`AdapterError::Busy`] when a driver
    /// still holds the channel. Give the channel back with [`SlotGuard::checkin`] if the Turn
    /// does not start after all.
    pub fn checkout(&mut self) -> Result<(Arc<C>, mpsc::UnboundedReceiver<I>), AdapterError> {
        let Some(resident) = self.state.resident.as_mut() else {
            return Err(AdapterError::Exited);
        };
        let Some(inbound) = resident.inbound.take() else {
            return Err(AdapterError::Busy);
        };
        Ok((resident.connection.clone(), inbound))
    }

    /// Gives back a checked-out inbound channel.
    pub fn checkin(&mut self, inbound: mpsc::UnboundedReceiver<I>) {
        if let Some(resident) = self.state.resident.as_mut() {
            resident.inbound = Some(inbound);
        }
    }

    /// Marks the Session busy, releases the slot and starts the Turn: `start` spawns the
    /// Turn's driver on the checked-out `inbound` channel and returns its control.
    pub fn begin_turn(
        mut self,
        inbound: mpsc::UnboundedReceiver<I>,
        start: impl FnOnce(TurnIo<I>) -> Arc<dyn TurnControl>,
    ) -> TurnHandle {
        self.state.busy = true;
        let shared = self.shared.clone();
        drop(self);
        let (events_tx, events_rx) = mpsc::channel(EVENT_BUFFER);
        let (release_tx, release_rx) = oneshot::channel();
        let control = start(TurnIo {
            inbound,
            events: events_tx,
            release: release_tx,
        });
        tokio::spawn(take_back(shared, release_rx));
        TurnHandle {
            events: events_rx,
            control,
        }
    }
}

/// Takes the process back when the Turn's driver releases it, then marks the Session idle and
/// acknowledges, so that the driver publishes the terminal event only after that.
async fn take_back<C, I>(shared: Arc<Shared<C, I>>, release: oneshot::Receiver<Release<I>>) {
    let (exit, done) = match release.await {
        Ok(Release { exit, done }) => (exit, Some(done)),
        Err(_) => (TurnExit::Discard, None),
    };
    let mut state = shared.state.lock().await;
    match exit {
        TurnExit::Idle(inbound) => match state.resident.as_mut() {
            Some(resident) => resident.inbound = Some(inbound),
            None => shared.resident.store(false, Ordering::SeqCst),
        },
        TurnExit::Discard => shared.discard(&mut state).await,
    }
    state.busy = false;
    drop(state);
    if let Some(done) = done {
        let _ = done.send(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use switchboard_protocol::{FunctionResultContent, InputPart, Receipt};

    struct Idle;

    #[async_trait]
    impl TurnControl for Idle {
        async fn submit_function_result(&self, _: &str, _: FunctionResultContent) -> Receipt {
            Receipt::refused("test", "no calls")
        }
        async fn steer(&self, _: Vec<InputPart>) -> Result<(), AdapterError> {
            Ok(())
        }
        async fn cancel(&self) -> Result<(), AdapterError> {
            Ok(())
        }
    }

    fn process() -> NativeProcess<(), u8> {
        let child = tokio::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        NativeProcess {
            child: HarnessChild::new(child, None),
            connection: Arc::new(()),
            inbound: mpsc::unbounded_channel().1,
        }
    }

    /// Starts a Turn and returns where its driver hands the process back.
    async fn start(slot: &ProcessSlot<(), u8>) -> oneshot::Sender<Release<u8>> {
        let mut guard = slot.lock().await;
        guard.ensure_idle().unwrap();
        let (_, inbound) = guard.checkout().unwrap();
        let (tx, rx) = oneshot::channel();
        guard.begin_turn(inbound, |io| {
            tx.send(io.release).ok().unwrap();
            Arc::new(Idle)
        });
        rx.await.unwrap()
    }

    #[tokio::test]
    async fn one_turn_at_a_time_and_eviction_only_when_idle() {
        let slot = ProcessSlot::default();
        assert!(!slot.is_resident());
        slot.lock().await.install(process());
        assert!(slot.is_resident());

        let release = start(&slot).await;
        assert_eq!(slot.lock().await.ensure_idle(), Err(AdapterError::Busy));
        assert_eq!(slot.evict().await, Err(AdapterError::Busy));
        let (done, acknowledged) = oneshot::channel();
        let exit = TurnExit::Idle(mpsc::unbounded_channel().1);
        release.send(Release { exit, done }).ok().unwrap();
        acknowledged.await.unwrap();
        assert!(slot.is_resident(), "the process is back");

        // A driver that vanishes takes the process with it.
        drop(start(&slot).await);
        let mut guard = slot.lock().await;
        while guard.has_process() {
            drop(guard);
            tokio::task::yield_now().await;
            guard = slot.lock().await;
        }
        assert_eq!(guard.checkout().err(), Some(AdapterError::Exited));
        guard.install(process());
        drop(guard);
        slot.evict().await.unwrap();
        assert!(!slot.is_resident());
    }
}
