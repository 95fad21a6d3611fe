//! The Claude Code [`SessionExecutor`]: one Session, at most one process, one Turn at a time.
//!
//! The process is started at preparation (so a configuration claude cannot run fails there)
//! and may be evicted whenever no Turn runs; the next Turn then launches a new process with the
//! same flags that resumes the native session ([`crate::resume`]). Turns on a resident process
//! are further `user` lines. While a Turn runs, its driver owns the process's inbound channel
//! and hands it back when the Turn settles, or reports that the process must be discarded.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use switchboard_adapter_kit::process::end as shutdown;
use switchboard_adapter_kit::turn::{Release, TurnExit, TurnIo};
use switchboard_protocol::{
    AdapterError, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};
use tokio::process::Child;
use tokio::sync::{Mutex, mpsc, oneshot};

use crate::input::user_content;
use crate::launch::{ClaudeProcess, launch};
use crate::layout::StateLayout;
use crate::resume::{native_session, session_id};
use crate::stream::{Connection, Inbound};
use crate::turn::{self, TurnSetup, stream_error};

/// Events a Turn may buffer before the driver waits for the reader.
const EVENT_BUFFER: usize = 256;

/// A live, initialized process.
struct Resident {
    child: Child,
    connection: Arc<Connection>,
    /// `None` while a Turn's driver holds it.
    inbound: Option<mpsc::UnboundedReceiver<Inbound>>,
}

#[derive(Default)]
struct State {
    resident: Option<Resident>,
    busy: bool,
}

struct Inner {
    binary: PathBuf,
    layout: StateLayout,
    config: SessionConfiguration,
    session_id: String,
    turn_deadline: Duration,
    state: Mutex<State>,
    resident: AtomicBool,
}

/// One Session on claude.
pub struct ClaudeExecutor {
    inner: Arc<Inner>,
}

impl ClaudeExecutor {
    /// Prepares the Session: chooses (or reads back) its native id and starts claude.
    pub async fn prepare(
        binary: PathBuf,
        state_dir: PathBuf,
        config: SessionConfiguration,
        turn_deadline: Duration,
    ) -> Result<Self, AdapterError> {
        let layout = StateLayout::new(state_dir);
        let session_id = session_id(&layout)
            .map_err(|e| AdapterError::Launch(format!("cannot record the session id: {e}")))?;
        let inner = Arc::new(Inner {
            binary,
            layout,
            config,
            session_id,
            turn_deadline,
            state: Mutex::new(State::default()),
            resident: AtomicBool::new(false),
        });
        {
            let mut state = inner.state.lock().await;
            inner.ensure_resident(&mut state).await?;
        }
        Ok(ClaudeExecutor { inner })
    }
}

impl Inner {
    async fn ensure_resident(&self, state: &mut State) -> Result<(), AdapterError> {
        // A process that died while idle is replaced now rather than failing the next Turn.
        let exited = state
            .resident
            .as_mut()
            .is_some_and(|r| !matches!(r.child.try_wait(), Ok(None)));
        if exited {
            self.discard(state).await;
        }
        if state.resident.is_some() {
            return Ok(());
        }
        let session = native_session(&self.layout, &self.session_id);
        let ClaudeProcess {
            child,
            connection,
            inbound,
        } = launch(&self.binary, &self.layout, &self.config, session)
            .await
            .map_err(|e| AdapterError::Launch(e.to_string()))?;
        state.resident = Some(Resident {
            child,
            connection,
            inbound: Some(inbound),
        });
        self.resident.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn discard(&self, state: &mut State) {
        if let Some(Resident {
            child, connection, ..
        }) = state.resident.take()
        {
            shutdown(child, connection).await;
        }
        self.resident.store(false, Ordering::SeqCst);
    }
}

/// Empties what arrived between Turns: late records of the previous Turn (lifecycle reports
/// after its result) are not this Turn's. A function call cannot belong to a Turn that is not
/// running, so it is answered with an error rather than left waiting.
async fn drain_idle(connection: &Connection, inbound: &mut mpsc::UnboundedReceiver<Inbound>) {
    while let Ok(stale) = inbound.try_recv() {
        if let Inbound::Call {
            control_request_id,
            call,
        } = stale
        {
            let reply = json!({"mcp_response": {"jsonrpc": "2.0", "id": call.mcp_id, "result": {
                "content": [{"type": "text", "text": "No Turn is running to answer this call."}],
                "isError": true,
            }}});
            let _ = connection.respond(&control_request_id, reply).await;
        }
    }
}

#[async_trait]
impl SessionExecutor for ClaudeExecutor {
    async fn start_turn(&self, turn: TurnRequest) -> Result<TurnHandle, AdapterError> {
        let inner = &self.inner;
        let content = user_content(&turn.input)?;
        let mut state = inner.state.lock().await;
        if state.busy {
            return Err(AdapterError::Busy);
        }
        inner.ensure_resident(&mut state).await?;
        let Some(resident) = state.resident.as_mut() else {
            return Err(AdapterError::Exited);
        };
        let connection = resident.connection.clone();
        let Some(mut inbound) = resident.inbound.take() else {
            return Err(AdapterError::Busy);
        };
        drain_idle(&connection, &mut inbound).await;

        let input_uuid = uuid::Uuid::new_v4().to_string();
        if let Err(error) = connection.send_user(&input_uuid, content).await {
            inner.discard(&mut state).await;
            return Err(stream_error(error));
        }

        state.busy = true;
        drop(state);
        let (events_tx, events_rx) = mpsc::channel(EVENT_BUFFER);
        let (release_tx, release_rx) = oneshot::channel();
        let control = turn::spawn(TurnSetup {
            connection,
            io: TurnIo {
                inbound,
                events: events_tx,
                release: release_tx,
            },
            input_uuid,
            structured: inner.config.execution_controls.output_format.is_some(),
            deadline: inner.turn_deadline,
        });
        let inner = inner.clone();
        tokio::spawn(async move {
            let (exit, done) = match release_rx.await {
                Ok(Release { exit, done }) => (exit, Some(done)),
                Err(_) => (TurnExit::Discard, None),
            };
            let mut state = inner.state.lock().await;
            match exit {
                TurnExit::Idle(inbound) => match state.resident.as_mut() {
                    Some(resident) => resident.inbound = Some(inbound),
                    None => inner.resident.store(false, Ordering::SeqCst),
                },
                TurnExit::Discard => inner.discard(&mut state).await,
            }
            state.busy = false;
            drop(state);
            if let Some(done) = done {
                let _ = done.send(());
            }
        });
        Ok(TurnHandle {
            events: events_rx,
            control,
        })
    }

    async fn evict(&self) -> Result<(), AdapterError> {
        let mut state = self.inner.state.lock().await;
        if state.busy {
            return Err(AdapterError::Busy);
        }
        self.inner.discard(&mut state).await;
        Ok(())
    }

    fn is_resident(&self) -> bool {
        self.inner.resident.load(Ordering::SeqCst)
    }

    fn native_session_id(&self) -> Option<String> {
        Some(self.inner.session_id.clone())
    }
}
