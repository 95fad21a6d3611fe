//! The Codex [`SessionExecutor`]: one Session, at most one process, one Turn at a time.
//!
//! The process is started lazily and may be evicted whenever no Turn runs; the next Turn then
//! launches a new process with the same overrides and resumes the thread ([`crate::resume`]).
//! While a Turn runs, its driver owns the process's inbound channel and hands it back when the
//! Turn settles, or reports that the process must be discarded.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::turn::{Release, TurnExit, TurnIo};
use switchboard_protocol::{
    AdapterError, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};
use tokio::process::Child;
use tokio::sync::{Mutex, mpsc, oneshot};

use crate::jsonrpc::{Connection, Inbound};
use crate::launch::{CONTROL_TIMEOUT, CodexProcess, StateLayout, launch};
use crate::overrides::config_overrides;
use crate::resume::{load_thread_id, open_thread};
use crate::turn::{self, TurnIds, rpc_error, user_input};

/// Events a Turn may buffer before the driver waits for the reader.
const EVENT_BUFFER: usize = 256;

/// A live process with its thread open.
struct Resident {
    child: Child,
    connection: Arc<Connection>,
    /// `None` while a Turn's driver holds it.
    inbound: Option<mpsc::UnboundedReceiver<Inbound>>,
}

impl Resident {
    async fn shutdown(self) {
        let Resident {
            child,
            connection,
            inbound,
        } = self;
        let inbound = inbound.unwrap_or_else(|| mpsc::unbounded_channel().1);
        CodexProcess {
            child,
            connection,
            inbound,
        }
        .shutdown()
        .await;
    }
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
    overrides: Vec<String>,
    turn_deadline: Duration,
    state: Mutex<State>,
    resident: AtomicBool,
    thread_id: StdMutex<Option<String>>,
}

/// One Session on codex.
pub struct CodexExecutor {
    inner: Arc<Inner>,
}

impl CodexExecutor {
    /// Prepares the Session: launches codex and opens (or resumes) its thread, so a bad
    /// configuration fails here rather than at the first Turn.
    pub async fn prepare(
        binary: PathBuf,
        state_dir: PathBuf,
        config: SessionConfiguration,
        turn_deadline: Duration,
    ) -> Result<Self, AdapterError> {
        let layout = StateLayout::new(state_dir);
        let thread_id = load_thread_id(&layout);
        let inner = Arc::new(Inner {
            binary,
            overrides: config_overrides(&config),
            layout,
            config,
            turn_deadline,
            state: Mutex::new(State::default()),
            resident: AtomicBool::new(false),
            thread_id: StdMutex::new(thread_id),
        });
        {
            let mut state = inner.state.lock().await;
            inner.ensure_resident(&mut state).await?;
        }
        Ok(CodexExecutor { inner })
    }
}

impl Inner {
    fn thread_id(&self) -> Option<String> {
        self.thread_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn ensure_resident(&self, state: &mut State) -> Result<(), AdapterError> {
        if state.resident.is_some() {
            return Ok(());
        }
        let process = launch(
            &self.binary,
            &self.layout,
            &self.overrides,
            &self.config.model_provider.api_key,
        )
        .await
        .map_err(|e| AdapterError::Launch(e.to_string()))?;
        let known = self.thread_id();
        match open_thread(
            &process.connection,
            &self.config,
            &self.layout,
            known.as_deref(),
        )
        .await
        {
            Ok(thread_id) => {
                *self.thread_id.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread_id);
                let CodexProcess {
                    child,
                    connection,
                    inbound,
                } = process;
                state.resident = Some(Resident {
                    child,
                    connection,
                    inbound: Some(inbound),
                });
                self.resident.store(true, Ordering::SeqCst);
                Ok(())
            }
            Err(error) => {
                process.shutdown().await;
                Err(error)
            }
        }
    }

    fn turn_start_params(&self, thread_id: &str, turn: &TurnRequest) -> Value {
        let mut params = json!({"threadId": thread_id, "input": user_input(&turn.input)});
        if let Some(format) = &self.config.execution_controls.output_format {
            // Per Turn in codex: sent on every root Turn, unchanged.
            params["outputSchema"] = format.schema.clone();
        }
        params
    }

    async fn discard(&self, state: &mut State) {
        if let Some(resident) = state.resident.take() {
            resident.shutdown().await;
        }
        self.resident.store(false, Ordering::SeqCst);
    }
}

#[async_trait]
impl SessionExecutor for CodexExecutor {
    async fn start_turn(&self, turn: TurnRequest) -> Result<TurnHandle, AdapterError> {
        let inner = &self.inner;
        let mut state = inner.state.lock().await;
        if state.busy {
            return Err(AdapterError::Busy);
        }
        inner.ensure_resident(&mut state).await?;
        let thread_id = inner.thread_id().ok_or(AdapterError::Exited)?;
        let Some(resident) = state.resident.as_mut() else {
            return Err(AdapterError::Exited);
        };
        let connection = resident.connection.clone();
        let Some(inbound) = resident.inbound.take() else {
            return Err(AdapterError::Busy);
        };

        let started = connection
            .request(
                "turn/start",
                inner.turn_start_params(&thread_id, &turn),
                CONTROL_TIMEOUT,
            )
            .await;
        let turn_id = match started.map(|r| {
            r.pointer("/turn/id")
                .and_then(Value::as_str)
                .map(str::to_owned)
        }) {
            Ok(Some(turn_id)) => turn_id,
            Ok(None) => {
                inner.discard(&mut state).await;
                return Err(AdapterError::Launch(
                    "turn/start returned no turn id".into(),
                ));
            }
            Err(error) => {
                let error = rpc_error(error);
                if matches!(error, AdapterError::Exited | AdapterError::Timeout(_)) {
                    inner.discard(&mut state).await;
                } else if let Some(resident) = state.resident.as_mut() {
                    resident.inbound = Some(inbound);
                }
                return Err(error);
            }
        };

        state.busy = true;
        drop(state);
        let (events_tx, events_rx) = mpsc::channel(EVENT_BUFFER);
        let ids = TurnIds { thread_id, turn_id };
        let (release_tx, release_rx) = oneshot::channel();
        let io = TurnIo {
            inbound,
            events: events_tx,
            release: release_tx,
        };
        let control = turn::spawn(connection, ids, io, inner.turn_deadline);
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
        self.inner.thread_id()
    }
}
