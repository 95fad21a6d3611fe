//! The Codex [`SessionExecutor`]: one Session, at most one process, one Turn at a time.
//!
//! The process is started at preparation and may be evicted whenever no Turn runs; the next
//! Turn then launches a new process with the same overrides and resumes the thread
//! ([`crate::resume`]). The bookkeeping (busy, resident, the hand-back of the process when a
//! Turn settles) is the adapter kit's [`ProcessSlot`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::adapter::Launch;
use switchboard_adapter_kit::executor::{ProcessSlot, SlotGuard};
use switchboard_protocol::{
    AdapterError, ProcessPlacement, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};

use crate::jsonrpc::{Connection, Inbound};
use crate::launch::{CONTROL_TIMEOUT, CodexProcess, StateLayout, launch, launch_overrides};
use crate::managed;
use crate::resume::{load_thread_id, open_thread};
use crate::turn::{self, TurnIds, rpc_error, user_input};
use crate::workspace;

struct Inner {
    binary: PathBuf,
    layout: StateLayout,
    config: SessionConfiguration,
    /// Where every launch of the process runs (`None`: `environment: none`).
    placement: Option<ProcessPlacement>,
    overrides: Vec<String>,
    turn_deadline: Duration,
    /// Where codex's managed requirements live ([`crate::managed`]).
    managed_dir: PathBuf,
    slot: ProcessSlot<Connection, Inbound>,
    thread_id: StdMutex<Option<String>>,
}

/// One Session on codex.
pub struct CodexExecutor {
    inner: Arc<Inner>,
}

impl CodexExecutor {
    /// Prepares the Session: launches codex and opens (or resumes) its thread, so a bad
    /// configuration (or managed requirements it cannot run under) fails here rather than at
    /// the first Turn.
    pub async fn prepare(launch: Launch, managed_dir: PathBuf) -> Result<Self, AdapterError> {
        let inner = Inner::new(launch, managed_dir);
        inner.ensure_resident(&mut inner.slot.lock().await).await?;
        Ok(CodexExecutor { inner })
    }

    /// Prepares the Session on `process`, an initialized app-server already running with
    /// exactly this Session's launch overrides and provider key (a warm one, [`crate::warm`]):
    /// its thread opens there, and only a later relaunch (after eviction) starts a process.
    pub async fn prepare_on(
        launch: Launch,
        managed_dir: PathBuf,
        process: CodexProcess,
    ) -> Result<Self, AdapterError> {
        let inner = Inner::new(launch, managed_dir);
        let mut slot = inner.slot.lock().await;
        if let Err(error) = inner.before_open() {
            process.shutdown().await;
            return Err(error);
        }
        inner.open_on(&mut slot, process).await?;
        drop(slot);
        Ok(CodexExecutor { inner })
    }
}

impl Inner {
    fn new(launch: Launch, managed_dir: PathBuf) -> Arc<Inner> {
        let layout = StateLayout::new(launch.state_dir);
        let thread_id = load_thread_id(&layout);
        Arc::new(Inner {
            binary: launch.binary,
            overrides: launch_overrides(&launch.configuration, launch.placement.as_ref()),
            placement: launch.placement,
            layout,
            config: launch.configuration,
            turn_deadline: launch.turn_deadline,
            managed_dir,
            slot: ProcessSlot::default(),
            thread_id: StdMutex::new(thread_id),
        })
    }

    fn thread_id(&self) -> Option<String> {
        self.thread_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn ensure_resident(
        &self,
        slot: &mut SlotGuard<'_, Connection, Inbound>,
    ) -> Result<(), AdapterError> {
        if slot.has_process() {
            return Ok(());
        }
        self.before_open()?;
        let process = launch(
            &self.binary,
            &self.layout,
            self.placement.as_ref(),
            &self.overrides,
            &self.config.model_provider.api_key,
        )
        .await
        .map_err(|e| AdapterError::Launch(e.to_string()))?;
        self.open_on(slot, process).await
    }

    /// What every opening of the thread checks and writes first: the managed files (they may
    /// have changed since the last launch), the state folders, the workspace's trust.
    fn before_open(&self) -> Result<(), AdapterError> {
        managed::check(&self.config, &self.managed_dir)?;
        self.layout
            .create_dirs(&[self.layout.codex_home()])
            .map_err(|e| AdapterError::Launch(e.to_string()))?;
        workspace::trust(&self.layout, self.placement.as_ref())
    }

    /// Opens (starts or resumes) the thread on `process` and holds it in the slot.
    async fn open_on(
        &self,
        slot: &mut SlotGuard<'_, Connection, Inbound>,
        process: CodexProcess,
    ) -> Result<(), AdapterError> {
        if let Err(error) = crate::mcp::verify(&process.connection, &self.config).await {
            process.shutdown().await;
            return Err(error);
        }
        let known = self.thread_id();
        match open_thread(
            &process.connection,
            &self.config,
            &self.layout,
            self.placement.as_ref(),
            known.as_deref(),
        )
        .await
        {
            Ok(thread_id) => {
                *self.thread_id.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread_id);
                slot.install(process);
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
}

#[async_trait]
impl SessionExecutor for CodexExecutor {
    async fn start_turn(&self, turn: TurnRequest) -> Result<TurnHandle, AdapterError> {
        let inner = &self.inner;
        let mut slot = inner.slot.lock().await;
        slot.ensure_idle()?;
        inner.ensure_resident(&mut slot).await?;
        let thread_id = inner.thread_id().ok_or(AdapterError::Exited)?;
        let (connection, inbound) = slot.checkout()?;

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
                slot.discard().await;
                return Err(AdapterError::Launch(
                    "turn/start returned no turn id".into(),
                ));
            }
            Err(error) => {
                let error = rpc_error(error);
                if matches!(error, AdapterError::Exited | AdapterError::Timeout(_)) {
                    slot.discard().await;
                } else {
                    slot.checkin(inbound);
                }
                return Err(error);
            }
        };

        let ids = TurnIds { thread_id, turn_id };
        Ok(slot.begin_turn(inbound, |io| {
            turn::spawn(connection, ids, io, inner.turn_deadline)
        }))
    }

    async fn evict(&self) -> Result<(), AdapterError> {
        self.inner.slot.evict().await
    }

    fn is_resident(&self) -> bool {
        self.inner.slot.is_resident()
    }

    fn native_session_id(&self) -> Option<String> {
        self.inner.thread_id()
    }
}
