//! The Codex [`SessionExecutor`]: one Session, at most one process, one Turn at a time.
//!
//! The process is started at preparation and may be evicted whenever no Turn runs; the next
//! Turn then launches a new process with the same overrides and resumes the thread
//! ([`crate::resume`]). The bookkeeping (busy, resident, the hand-back of the process when a
//! Turn settles) is the adapter kit's [`ProcessSlot`].
//!
//! With a [`ProcessHost`] a shareable Session's "process" is its thread's lease on a process
//! other Sessions share ([`crate::host`]): the slot holds the lease, eviction unsubscribes the
//! thread and drops the lease, and a process that died under an idle Session is replaced at its
//! next Turn.

use std::path::PathBuf;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use switchboard_adapter_kit::adapter::Launch;
use switchboard_adapter_kit::executor::{ProcessSlot, SlotGuard};
use switchboard_adapter_kit::process::NativeProcess;
use switchboard_protocol::{
    AdapterError, ProcessPlacement, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};

use crate::host::{Home, Link, ProcessHost, ProcessSpec, ShareKey};
use crate::jsonrpc::{Connection, Inbound};
use crate::launch::{
    CONTROL_TIMEOUT, CodexProcess, StateLayout, THREAD_HOME_FILE, launch, launch_overrides,
    own_process_cpus,
};
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
    slot: ProcessSlot<Link, Inbound>,
    thread_id: StdMutex<Option<String>>,
    /// The shared process the Session's thread last joined (meaningful while resident).
    shared_pid: StdMutex<Option<u32>>,
    /// Where the Session's processes run.
    home: Home,
}

/// One Session on codex.
pub struct CodexExecutor {
    inner: Arc<Inner>,
}

impl CodexExecutor {
    /// Prepares the Session: launches codex and opens (or resumes) its thread, so a bad
    /// configuration (or managed requirements it cannot run under) fails here rather than at
    /// the first Turn. With a `host`, a shareable Session runs as a thread on a shared process.
    pub async fn prepare(
        launch: Launch,
        managed_dir: PathBuf,
        host: Option<Arc<ProcessHost>>,
    ) -> Result<Self, AdapterError> {
        let inner = Inner::new(launch, managed_dir, host);
        inner
            .ensure_resident(&mut inner.slot.lock().await, true)
            .await?;
        Ok(CodexExecutor { inner })
    }

    /// Prepares the Session on `process`, an initialized app-server already running with
    /// exactly this Session's launch overrides and provider key (a warm one, [`crate::warm`]):
    /// its thread opens there, in a process of its own, and only a later relaunch (after
    /// eviction) starts a process.
    pub async fn prepare_on(
        launch: Launch,
        managed_dir: PathBuf,
        process: CodexProcess,
    ) -> Result<Self, AdapterError> {
        let inner = Inner::new(launch, managed_dir, None);
        let mut slot = inner.slot.lock().await;
        let opened = match (inner.before_open(), &inner.home) {
            (Ok(()), Home::Own(process_layout)) => {
                inner.open_own(&mut slot, process, process_layout).await
            }
            (Ok(()), Home::Shared(..)) => {
                process.shutdown().await;
                Err(AdapterError::Launch(
                    "a warm process cannot host a shared Session".into(),
                ))
            }
            (Err(error), _) => {
                process.shutdown().await;
                Err(error)
            }
        };
        opened?;
        drop(slot);
        Ok(CodexExecutor { inner })
    }
}

impl Inner {
    fn new(launch: Launch, managed_dir: PathBuf, host: Option<Arc<ProcessHost>>) -> Arc<Inner> {
        let layout = StateLayout::new(launch.state_dir.clone());
        let thread_id = load_thread_id(&layout);
        let overrides = launch_overrides(&launch.configuration, launch.placement.as_ref());
        let home = Home::choose(host, &launch, &layout, &overrides, thread_id.is_some());
        Arc::new(Inner {
            binary: launch.binary,
            overrides,
            home,
            placement: launch.placement,
            layout,
            config: launch.configuration,
            turn_deadline: launch.turn_deadline,
            managed_dir,
            slot: ProcessSlot::default(),
            thread_id: StdMutex::new(thread_id),
            shared_pid: StdMutex::new(None),
        })
    }

    fn thread_id(&self) -> Option<String> {
        self.thread_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Opens the thread on a process unless the Session holds one. Without `may_start_process`
    /// it only joins a shared process that lives, and fails [`AdapterError::Exited`] when none
    /// does.
    async fn ensure_resident(
        &self,
        slot: &mut SlotGuard<'_, Link, Inbound>,
        may_start_process: bool,
    ) -> Result<(), AdapterError> {
        // A shared process may have died under this idle Session: its next Turn starts anew.
        if slot.connection().is_some_and(|link| !link.is_alive()) {
            slot.discard().await;
        }
        if slot.has_process() {
            return Ok(());
        }
        self.before_open()?;
        match &self.home {
            Home::Own(_) if !may_start_process => Err(AdapterError::Exited),
            Home::Own(process_layout) => {
                let process = launch(
                    &self.binary,
                    process_layout,
                    self.placement.as_ref(),
                    own_process_cpus(&self.config, self.placement.as_ref()),
                    &self.overrides,
                    &self.config.model_provider.api_key,
                )
                .await
                .map_err(|e| AdapterError::Launch(e.to_string()))?;
                self.open_own(slot, process, process_layout).await
            }
            Home::Shared(host, key) => self.join_shared(slot, host, key, may_start_process).await,
        }
    }

    /// What every opening of the thread checks and writes first: the managed files (they may
    /// have changed since the last launch), the state folders, and for a process of its own,
    /// its home and the workspace's trust.
    fn before_open(&self) -> Result<(), AdapterError> {
        managed::check(&self.config, &self.managed_dir)?;
        self.layout
            .create_dirs(&[])
            .map_err(|e| AdapterError::Launch(e.to_string()))?;
        if let Home::Own(process_layout) = &self.home {
            process_layout
                .create_dirs(&[process_layout.codex_home()])
                .map_err(|e| AdapterError::Launch(e.to_string()))?;
            workspace::trust(process_layout, self.placement.as_ref())?;
        }
        Ok(())
    }

    /// Opens (starts or resumes) the thread on `process`, an own process whose home is
    /// `process_layout`'s, and holds it in the slot; a failure ends the process.
    async fn open_own(
        &self,
        slot: &mut SlotGuard<'_, Link, Inbound>,
        process: CodexProcess,
        process_layout: &StateLayout,
    ) -> Result<(), AdapterError> {
        if let Err(error) = crate::mcp::verify(&process.connection, &self.config).await {
            process.shutdown().await;
            return Err(error);
        }
        match self.open(&process.connection, process_layout).await {
            Ok(()) => {
                slot.install(NativeProcess {
                    child: process.child,
                    connection: Arc::new(Link::Own(process.connection)),
                    inbound: process.inbound,
                });
                Ok(())
            }
            Err(error) => {
                process.shutdown().await;
                Err(error)
            }
        }
    }

    /// Opens the thread on the key's shared process (started if none lives) and holds the
    /// lease; a failure drops the lease, which ends the process only if nobody else holds it.
    async fn join_shared(
        &self,
        slot: &mut SlotGuard<'_, Link, Inbound>,
        host: &ProcessHost,
        key: &ShareKey,
        may_start_process: bool,
    ) -> Result<(), AdapterError> {
        let spec = ProcessSpec {
            binary: &self.binary,
            overrides: &self.overrides,
            api_key: &self.config.model_provider.api_key,
        };
        let mut lease = if may_start_process {
            host.join(key, spec)
                .await
                .map_err(|e| AdapterError::Launch(e.to_string()))?
        } else {
            host.join_live(key).await.ok_or(AdapterError::Exited)?
        };
        self.open(lease.connection(), &host.layout(key)).await?;
        let thread_id = self.thread_id().ok_or(AdapterError::Exited)?;
        let inbound = lease.bind(&thread_id).ok_or(AdapterError::Exited)?;
        *self.shared_pid.lock().unwrap_or_else(|e| e.into_inner()) = lease.process_id();
        slot.install_leased(Arc::new(Link::Shared(lease)), inbound);
        Ok(())
    }

    /// Opens (starts or resumes) the thread on a process whose `CODEX_HOME` is
    /// `process_layout`'s, and records the thread and that home.
    async fn open(
        &self,
        connection: &Connection,
        process_layout: &StateLayout,
    ) -> Result<(), AdapterError> {
        let known = self.thread_id();
        let thread_id = open_thread(
            connection,
            &self.config,
            &self.layout,
            self.placement.as_ref(),
            known.as_deref(),
        )
        .await?;
        let home = process_layout.codex_home();
        self.layout
            .write_id(THREAD_HOME_FILE, &home.to_string_lossy())
            .map_err(|e| AdapterError::Launch(format!("cannot record the thread's home: {e}")))?;
        *self.thread_id.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread_id);
        Ok(())
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
        inner.ensure_resident(&mut slot, true).await?;
        let thread_id = inner.thread_id().ok_or(AdapterError::Exited)?;
        let (link, inbound) = slot.checkout()?;

        let started = link
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
            turn::spawn(link.connection(), ids, io, inner.turn_deadline)
        }))
    }

    /// Ends the Session's process, or on a shared one unsubscribes its thread and lets go of it.
    async fn evict(&self) -> Result<(), AdapterError> {
        let mut slot = self.inner.slot.lock().await;
        slot.ensure_idle()?;
        if let Some(Link::Shared(lease)) = slot.connection().map(|link| &**link) {
            lease.unsubscribe().await;
        }
        slot.discard().await;
        Ok(())
    }

    fn is_resident(&self) -> bool {
        self.inner.slot.is_resident()
    }

    fn native_session_id(&self) -> Option<String> {
        self.inner.thread_id()
    }

    /// A thread whose rollout lives in a home other than the Session's state directory (a
    /// shared process's) is deleted through codex (`thread/delete`, which removes its rollout
    /// and index entry), resuming it first when evicted; then the Session lets go as on eviction.
    async fn release(&self, may_start_process: bool) -> Result<(), AdapterError> {
        let inner = &self.inner;
        let mut slot = inner.slot.lock().await;
        slot.ensure_idle()?;
        if let Some(thread_id) = inner
            .thread_id()
            .filter(|_| inner.home.is_foreign(&inner.layout))
        {
            let deleted = match inner.ensure_resident(&mut slot, may_start_process).await {
                Ok(()) => match slot.connection() {
                    Some(link) => link
                        .request(
                            "thread/delete",
                            json!({"threadId": thread_id}),
                            CONTROL_TIMEOUT,
                        )
                        .await
                        .map(drop)
                        .map_err(|e| e.to_string()),
                    None => Err("no process".into()),
                },
                Err(error) => Err(error.to_string()),
            };
            if let Err(error) = deleted {
                // The next process of that home deletes it instead.
                let kept = crate::released::keep(inner.layout.root());
                tracing::warn!(%thread_id, %error, ?kept, "cannot delete a released Session's thread now");
            }
        }
        slot.discard().await;
        Ok(())
    }

    /// An evicted Session whose thread lives in another home: its release resumes the thread
    /// on a process of that home to delete it ([`CodexExecutor::release`]).
    fn release_starts_process(&self) -> bool {
        let inner = &self.inner;
        let joins_a_live_process = match &inner.home {
            Home::Shared(host, key) => host.has_live(key),
            Home::Own(_) => false,
        };
        !inner.slot.is_resident()
            && inner.thread_id().is_some()
            && inner.home.is_foreign(&inner.layout)
            && !joins_a_live_process
    }

    fn shared_process(&self) -> Option<u32> {
        if !self.inner.slot.is_resident() {
            return None;
        }
        *self
            .inner
            .shared_pid
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}
