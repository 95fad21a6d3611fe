//! The frame loop every transport shares: Core's frames in, the Runtime's frames out.
//!
//! The loop owns no socket. It reads [`CoreToRuntime`] envelopes from one channel and writes
//! [`RuntimeToCore`] envelopes to another; [`crate::LocalRuntime`] hands those channels to an
//! in-process Core, [`crate::run_remote`] bridges them to a WebSocket. It also sends the
//! `heartbeat` at once and then every `heartbeat_interval`.
//!
//! Nothing here waits on a harness inline: preparing, starting a Turn and waiting for a
//! function-result receipt each run in their own task, so one slow Session never stalls another
//! Session's frames. What must stay ordered does: a Turn's events are forwarded by one task, in
//! the order the adapter yields them, ending with `done`.
//!
//! Frame ids: preparation frames carry the Session ID; Turn output, steer, cancel and function
//! frames carry the Run ID; a `protocol_error` carries the offending frame's id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{
    Done, ErrorEvent, ExecutionPrepare, ExecutionStart, FunctionResult, PreparationState,
    PreparationStatus, PromptSteer, PromptSteerAck, ProtocolError, TurnOutcome, WorkspaceResult,
};
use switchboard_protocol::workspace::WorkspaceEntry;
use switchboard_protocol::{
    AdapterError, AdapterEvent, CoreToRuntime, PrepareRequest, Receipt, RuntimeToCore, TurnRequest,
};
use tokio::sync::{broadcast, mpsc};
use tracing::Instrument;

use crate::mcp_gateway::{McpGateway, WithGateway};
use crate::registry::Registry;
use crate::sessions::{Admission, Notice, Sessions};
use crate::warm::Warmer;
use crate::workspace::relay::Forwarder;
use crate::workspace::{WorkspaceError, WorkspaceOptions, Workspaces};

/// Frames Core sends, as the loop reads them.
pub type Inbound = mpsc::Receiver<Envelope<CoreToRuntime>>;
/// Frames the loop sends to Core.
pub type Outbound = mpsc::Sender<Envelope<RuntimeToCore>>;

/// The output channel's depth (core-contracts §6.6: "the output channel holds 64 frames").
pub const OUTPUT_CAPACITY: usize = 64;

/// How a Runtime runs Sessions, whatever its transport.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// Each Session's native state lives in `<state_root>/<session_id>`.
    pub state_root: PathBuf,
    /// An executor idle this long is evicted (its process ends; the next Turn resumes it).
    pub idle_timeout: Duration,
    pub heartbeat_interval: Duration,
    /// At most this many harness processes live at once; a Turn needing one more waits
    /// queued until the least recently used idle one can be evicted (`crate::sessions`).
    pub max_live_harnesses: usize,
    /// At most this many harness processes start at once; more preparations wait (reported
    /// `queued`). Launching is the CPU-heavy part of a Session (~0.5 s of CPU for codex):
    /// hundreds at once on a few cores starve each other past the adapters' control timeouts,
    /// and those Turns would fail. Default: [`crate::capacity::default_concurrent_launches`].
    pub max_concurrent_launches: usize,
    /// How many started, initialized harness processes wait for new Sessions
    /// ([`crate::warm`]), each counted against `max_live_harnesses`. `0` (the library's
    /// default): none; the binary's default is [`crate::capacity::default_warm_harnesses`].
    pub warm_harnesses: usize,
    /// Where managed workspaces and sandbox relays live.
    pub workspaces: WorkspaceOptions,
}

impl RuntimeOptions {
    /// Defaults for a data directory: state under `<data_dir>/sessions`, a 5 minute idle
    /// eviction, a 15 second heartbeat, the machine's default bound on live harness processes
    /// ([`crate::capacity`]), workspaces under `<data_dir>/environments`.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        RuntimeOptions {
            state_root: data_dir.join("sessions"),
            idle_timeout: Duration::from_secs(5 * 60),
            heartbeat_interval: Duration::from_secs(15),
            max_live_harnesses: crate::capacity::default_max_live_harnesses(),
            max_concurrent_launches: crate::capacity::default_concurrent_launches(),
            warm_harnesses: 0,
            workspaces: WorkspaceOptions::for_data_dir(&data_dir),
        }
    }

    /// Where shared Codex processes keep their homes (`--share-harness-processes`): beside the
    /// Sessions' state, in a folder no Session id can name.
    pub fn shared_codex_root(&self) -> PathBuf {
        self.state_root.join(".codex-shared")
    }
}

struct Loop {
    registry: Arc<Registry>,
    options: RuntimeOptions,
    sessions: Sessions,
    out: Outbound,
    beating: tokio::sync::Mutex<()>,
    workspaces: Workspaces,
    /// The provider relays of prepared network-disabled Sessions, ended at release.
    relays: Mutex<HashMap<String, Forwarder>>,
    /// Permits to start a harness process (`RuntimeOptions::max_concurrent_launches`).
    launches: Arc<tokio::sync::Semaphore>,
    /// Each running Run's span, for the frames that act on it (a function result).
    run_spans: Mutex<HashMap<String, tracing::Span>>,
    /// The warm pool's refills and bindings.
    warm: Arc<Warmer>,
}

/// Serves frames until `inbound` closes, then ends every Session's native process.
pub async fn serve_frames(
    registry: Arc<Registry>,
    options: RuntimeOptions,
    mut inbound: Inbound,
    out: Outbound,
    notices: broadcast::Sender<Notice>,
) {
    let sessions = Sessions::new(options.idle_timeout, options.max_live_harnesses, notices);
    let mut heartbeat = tokio::time::interval(options.heartbeat_interval);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut changes = registry.changes();
    let workspaces = Workspaces::new(options.workspaces.clone(), registry.bwrap().cloned());
    let launches = Arc::new(tokio::sync::Semaphore::new(
        options.max_concurrent_launches.max(1),
    ));
    let warm = Arc::new(Warmer::new(
        registry.codex(),
        options.warm_harnesses,
        &options.state_root,
        sessions.clone(),
        launches.clone(),
    ));
    let this = Arc::new(Loop {
        warm,
        launches,
        registry,
        options,
        sessions,
        out,
        beating: tokio::sync::Mutex::new(()),
        workspaces,
        relays: Mutex::new(HashMap::new()),
        run_spans: Mutex::new(HashMap::new()),
    });
    loop {
        tokio::select! {
            frame = inbound.recv() => match frame {
                Some(frame) => this.clone().dispatch(frame),
                None => break,
            },
            // The first tick is immediate: the heartbeat goes out at once. An install that
            // ends is advertised at once too, so Core can start the Turns waiting for it.
            _ = heartbeat.tick() => this.clone().beat(),
            Ok(()) = changes.changed() => this.clone().beat(),
            // Core stopped listening: nothing more can be reported.
            _ = this.out.closed() => break,
        }
    }
    for executor in this.sessions.drain() {
        let _ = executor.evict().await;
    }
    for process in this.sessions.drain_warm() {
        this.sessions.end_warm(process).await;
    }
}

impl Loop {
    fn beat(self: Arc<Self>) {
        tokio::spawn(async move {
            // One heartbeat at a time: a slow probe must not send an older state after a
            // newer one.
            let _turn = self.beating.lock().await;
            let beat = self.registry.heartbeat().await;
            self.send(None, beat.into()).await;
        });
    }

    async fn send(&self, id: Option<String>, message: RuntimeToCore) {
        // A closed channel means Core is gone; the loop notices and stops.
        let _ = self.out.send(Envelope::new(id, message)).await;
    }

    fn dispatch(self: Arc<Self>, frame: Envelope<CoreToRuntime>) {
        let id = frame.id;
        match frame.message {
            CoreToRuntime::ExecutionPrepare(p) => {
                tokio::spawn(async move { self.prepare(p).await });
            }
            CoreToRuntime::ExecutionStart(s) => self.start(id, s),
            CoreToRuntime::FunctionResult(r) => {
                let span = tracing::info_span!(
                    parent: &self.run_span(id.as_deref()),
                    "runtime.function_result",
                    call.id = %r.call_id,
                    delivery.id = %r.delivery_id,
                    receipt.applied = tracing::field::Empty,
                );
                tokio::spawn(async move { self.function_result(id, r).await }.instrument(span));
            }
            CoreToRuntime::PromptSteer(s) => {
                tokio::spawn(async move { self.steer(id, s).await });
            }
            CoreToRuntime::PromptCancel(_) => {
                tokio::spawn(async move { self.cancel(id).await });
            }
            CoreToRuntime::ExecutionRelease(r) => {
                tokio::spawn(async move { self.release(r.session_id).await });
            }
            CoreToRuntime::WorkspaceWrite(w) => {
                self.workspace(id, w.environment_id.clone(), move |ws| {
                    ws.write(&w.environment_id, w.placement, &w.file)
                        .map(|entry| vec![entry])
                })
            }
            CoreToRuntime::WorkspaceList(l) => {
                self.workspace(id, l.environment_id.clone(), move |ws| {
                    ws.list(&l.environment_id, l.placement, l.path.as_deref())
                })
            }
            CoreToRuntime::WorkspaceRemove(r) => {
                self.workspace(id, r.environment_id.clone(), move |ws| {
                    ws.remove(&r.environment_id).map(|()| vec![])
                })
            }
            CoreToRuntime::Welcome(_) | CoreToRuntime::HelloRefused(_) => {
                let frame_type = if matches!(frame.message, CoreToRuntime::Welcome(_)) {
                    "welcome"
                } else {
                    "hello_refused"
                };
                tokio::spawn(async move {
                    self.protocol_error(id, frame_type, "unexpected_frame", "the handshake is over")
                        .await
                });
            }
        }
    }

    /// Runs a `workspace_*` request and answers with the same frame id. File operations block,
    /// so they run on the blocking pool, never in the frame loop.
    fn workspace(
        self: Arc<Self>,
        id: Option<String>,
        environment_id: String,
        operation: impl FnOnce(&Workspaces) -> Result<Vec<WorkspaceEntry>, WorkspaceError>
        + Send
        + 'static,
    ) {
        tokio::spawn(async move {
            let this = self.clone();
            let outcome = tokio::task::spawn_blocking(move || operation(&this.workspaces))
                .await
                .unwrap_or_else(|e| {
                    Err(WorkspaceError::Sandbox(format!(
                        "the workspace operation did not finish: {e}"
                    )))
                });
            let result = match outcome {
                Ok(files) => WorkspaceResult {
                    environment_id,
                    files,
                    error_code: None,
                    error: None,
                },
                Err(error) => WorkspaceResult {
                    environment_id,
                    files: Vec::new(),
                    error_code: Some(error.code().to_owned()),
                    error: Some(error.to_string()),
                },
            };
            self.send(id, result.into()).await;
        });
    }

    async fn protocol_error(
        &self,
        id: Option<String>,
        frame_type: &str,
        code: &str,
        message: &str,
    ) {
        let error = ProtocolError {
            frame_type: Some(frame_type.to_owned()),
            error_code: code.to_owned(),
            message: message.to_owned(),
        };
        self.send(id, error.into()).await;
    }

    async fn preparation(
        &self,
        session_id: &str,
        state: PreparationState,
        error: Option<(&str, String)>,
    ) {
        let (error_code, error) = match error {
            Some((code, message)) => (Some(code.to_owned()), Some(message)),
            None => (None, None),
        };
        let status = PreparationStatus {
            session_id: session_id.to_owned(),
            state,
            error_code,
            error,
        };
        self.send(Some(session_id.to_owned()), status.into()).await;
    }

    async fn prepare(&self, request: ExecutionPrepare) {
        let ExecutionPrepare {
            session_id,
            configuration,
        } = request;
        // Preparing twice is answered from the executor already held: Core may resend a
        // preparation it never saw answered.
        if self.sessions.executor(&session_id).is_some() {
            return self
                .preparation(&session_id, PreparationState::Ready, None)
                .await;
        }
        if !is_safe_dir_name(&session_id) {
            let why = "a session id may hold only letters, digits, `_` and `-`".to_owned();
            return self
                .preparation(
                    &session_id,
                    PreparationState::Failed,
                    Some(("invalid_session_id", why)),
                )
                .await;
        }
        self.preparation(&session_id, PreparationState::Preparing, None)
            .await;
        let Some(adapter) = self.registry.adapter(configuration.harness) else {
            let error = AdapterError::Unavailable(format!(
                "this Runtime has no adapter for {:?}",
                configuration.harness
            ));
            return self
                .preparation(
                    &session_id,
                    PreparationState::Failed,
                    Some((error.code(), error.to_string())),
                )
                .await;
        };
        // The stdio servers' env_vars, from the Environment, before anything is placed.
        let mcp_env = match crate::mcp_env::resolve_from_process(&configuration) {
            Ok(resolved) => resolved,
            Err(error) => {
                let error = (crate::mcp_env::CODE, error.to_string());
                return self
                    .preparation(&session_id, PreparationState::Failed, Some(error))
                    .await;
            }
        };
        let mut configuration = configuration;
        if let Err(message) = crate::mcp_environment::route(&mut configuration) {
            let error = (crate::mcp_environment::CODE, message);
            return self
                .preparation(&session_id, PreparationState::Failed, Some(error))
                .await;
        }
        // The harness sees only the gateway's URLs (crate::mcp_gateway): no bearer reaches it.
        let (configuration, gateway) = match McpGateway::start(configuration).await {
            Ok(started) => started,
            Err(error) => {
                let error = AdapterError::InvalidConfiguration(error.to_string());
                return self
                    .preparation(
                        &session_id,
                        PreparationState::Failed,
                        Some((error.code(), error.to_string())),
                    )
                    .await;
            }
        };
        let mut configuration = configuration;
        let state_dir = self.options.state_root.join(&session_id);
        let mut placement = None;
        let mut relay = None;
        if let Some(workspace) = &configuration.workspace {
            let install_dirs = self.registry.sandbox_paths(configuration.harness);
            let placed = self
                .workspaces
                .place(
                    &session_id,
                    workspace,
                    &configuration.model_provider.base_url,
                    &state_dir,
                    &install_dirs,
                )
                .await;
            let placed = match placed {
                Ok(placed) => placed,
                Err(error) => {
                    self.workspaces.release(&session_id);
                    // Whatever went wrong, the Environment could not be made ready.
                    let error = ("sandbox_error", error.to_string());
                    return self
                        .preparation(&session_id, PreparationState::Failed, Some(error))
                        .await;
                }
            };
            if let Some(url) = placed.base_url {
                configuration.model_provider.base_url = url;
            }
            let mut placed_in = placed.placement;
            placed_in.mcp_env = mcp_env;
            placement = Some(placed_in);
            relay = placed.relay;
        }
        let configuration_harness = configuration.harness;
        let request = PrepareRequest {
            session_id: session_id.clone(),
            configuration,
            state_dir,
            placement,
        };
        let warm_key = self.warm.key(&request);
        let (prepared, bound_warm) = match self.prepare_warm(&request, warm_key.as_ref()).await {
            Some(prepared) => (prepared, true),
            None => (self.prepare_cold(&*adapter, request).await, false),
        };
        let prepared = prepared.map(|executor| match gateway {
            Some(gateway) => Box::new(WithGateway { executor, gateway }),
            None => executor,
        });
        match prepared {
            Ok(executor) => {
                if let Some(relay) = relay {
                    self.relays_held().insert(session_id.clone(), relay);
                }
                let harness = configuration_harness.as_str();
                self.sessions
                    .insert(&session_id, harness, Arc::from(executor));
                self.preparation(&session_id, PreparationState::Ready, None)
                    .await;
                match warm_key {
                    Some(key) if bound_warm => self.warm.refill_after_first_turn(&session_id, key),
                    Some(key) => self.warm.refill(key),
                    None => {}
                }
            }
            Err(error) => {
                self.sessions.preparation_failed();
                drop(relay);
                self.workspaces.release(&session_id);
                self.preparation(
                    &session_id,
                    PreparationState::Failed,
                    Some((error.code(), error.to_string())),
                )
                .await;
            }
        }
    }

    /// Prepares on a warm process of `key` when the pool has one (`None`: it has not). The
    /// process's slot is the preparation's; if the warm process fails the Session (it died
    /// after the pool last looked), the slot is given back and `None` lets it launch cold.
    async fn prepare_warm(
        &self,
        request: &PrepareRequest,
        key: Option<&switchboard_codex::warm::WarmKey>,
    ) -> Option<Result<Box<dyn switchboard_protocol::SessionExecutor>, AdapterError>> {
        let process = self.sessions.take_warm(&request.session_id, key?).await?;
        let prepared = self.warm.prepare(request.clone(), process).await;
        if prepared.is_err() {
            // No first Turn on it will release the launch hold the take set.
            self.sessions.release_warm_hold();
        }
        match prepared {
            Ok(executor) => Some(Ok(executor)),
            Err(error @ (AdapterError::Exited | AdapterError::Timeout(_))) => {
                tracing::warn!(session = %request.session_id, %error, "a warm process failed; launching");
                crate::warm::remove_linked(&request.state_dir);
                self.sessions.preparation_failed();
                None
            }
            Err(error) => Some(Err(error)),
        }
    }

    /// A run's Turn is over, however it ended: its Session's slot is free, and a warm refill
    /// its binding held back goes ahead.
    fn turn_over(&self, run_id: &str, session_id: &str) {
        self.sessions.run_finished(run_id);
        self.sessions.turn_ended(session_id);
        self.warm.turn_ended(session_id);
    }

    /// Prepares by launching the Session's own process, in a slot and with a launch permit.
    async fn prepare_cold(
        &self,
        adapter: &dyn switchboard_protocol::Adapter,
        request: PrepareRequest,
    ) -> Result<Box<dyn switchboard_protocol::SessionExecutor>, AdapterError> {
        let session_id = request.session_id.clone();
        // Preparing launches the harness process: it waits for a slot like a Turn does, and
        // Core hears that it waits (`queued`), then that it goes on (`preparing` again), so its
        // bound on the preparation does not count the wait.
        let queued = self.preparation(&session_id, PreparationState::Queued, None);
        let mut waited = self
            .sessions
            .reserve_for_preparation(&session_id, queued)
            .await;
        // Then for a launch permit, reported the same way.
        let (launch, waited_to_launch) = self
            .launch_permit(async {
                if !waited {
                    self.preparation(&session_id, PreparationState::Queued, None)
                        .await;
                }
            })
            .await;
        waited |= waited_to_launch;
        if waited {
            self.preparation(&session_id, PreparationState::Preparing, None)
                .await;
        }
        let prepared = adapter.prepare(request).await;
        drop(launch);
        prepared
    }

    fn relays_held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Forwarder>> {
        // Each change is one insert or remove: what a poisoned lock holds is consistent.
        self.relays.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A permit to start a harness process (`RuntimeOptions::max_concurrent_launches`), held
    /// until the launch is done; every launch, a preparation's or a cold resume's, takes one
    /// here. `on_wait` runs once, first, if the permit is not free at once. The permit (`None`
    /// only if the semaphore were closed, which it never is), and whether it waited.
    async fn launch_permit(
        &self,
        on_wait: impl Future<Output = ()>,
    ) -> (Option<tokio::sync::OwnedSemaphorePermit>, bool) {
        match self.launches.clone().try_acquire_owned() {
            Ok(permit) => (Some(permit), false),
            Err(_) => {
                on_wait.await;
                (self.launches.clone().acquire_owned().await.ok(), true)
            }
        }
    }

    /// Registers the Run before returning, so a frame for it that arrives while the Turn is
    /// still starting waits for it instead of finding nothing.
    fn start(self: Arc<Self>, id: Option<String>, start: ExecutionStart) {
        let run_id = start.run_id.clone();
        let Some(publish) = self.sessions.run_starting(&run_id) else {
            tokio::spawn(async move {
                self.protocol_error(
                    id,
                    "execution_start",
                    "run_in_progress",
                    "this Run already started",
                )
                .await
            });
            return;
        };
        // Queued now, before any later frame is read, so a cancel that follows finds it.
        self.sessions.enqueue(&run_id);
        // Under Core's dispatch span when the frame names it: the Turn's one trace.
        let span = tracing::info_span!(
            parent: None,
            "runtime.turn",
            session.id = %start.session_id,
            turn.id = %start.turn_id,
            run.id = %run_id,
        );
        if let Some(parent) = &start.traceparent {
            switchboard_telemetry::adopt(&span, parent, None);
        }
        self.run_spans_held().insert(run_id.clone(), span.clone());
        tokio::spawn(
            async move {
                let executor = match self.sessions.admit(&start.session_id, &run_id).await {
                    Admission::Granted(executor) => executor,
                    Admission::Gone => {
                        self.sessions.run_finished(&run_id);
                        let error = (
                            "session_not_prepared",
                            "the Session is not prepared on this Runtime",
                        );
                        return self.fail_run(&run_id, error.0, error.1).await;
                    }
                    Admission::Cancelled => {
                        self.sessions.run_finished(&run_id);
                        // The same settlement as a cancelled running Turn: `done{cancelled}`.
                        let cancelled = AdapterEvent::Cancelled { usage: None };
                        for message in cancelled.into_messages() {
                            self.send(Some(run_id.clone()), message).await;
                        }
                        return;
                    }
                };
                // An evicted Session's process is relaunched inside `start_turn` (the native
                // resume: codex `thread/resume`, claude `--resume`, ACP `session/load`), so that
                // start waits for a launch permit like a preparation does; the wait is reported as
                // a wait for a slot is (`Notice::Queued`; Core bounds no started Turn's wait).
                let launch = if executor.is_resident() {
                    None
                } else {
                    if let Some(harness) = self.sessions.harness(&start.session_id) {
                        metrics::counter!(crate::metrics::HARNESS_RESUMES, "harness" => harness)
                            .increment(1);
                    }
                    let (permit, _) = self
                        .launch_permit(async { self.sessions.report_queued(&run_id) })
                        .await;
                    permit
                };
                let turn = executor
                    .start_turn(TurnRequest {
                        run_id: run_id.clone(),
                        turn_id: start.turn_id,
                        input: start.input,
                    })
                    .await;
                drop(launch);
                // A relaunch (or a crash at start) changed what is resident.
                self.sessions.report_processes();
                let mut turn = match turn {
                    Ok(turn) => turn,
                    Err(error) => {
                        self.turn_over(&run_id, &start.session_id);
                        return self
                            .fail_run(&run_id, error.code(), &error.to_string())
                            .await;
                    }
                };
                let _ = publish.send(Some(turn.control.clone()));
                while let Some(event) = turn.events.recv().await {
                    let terminal = event.is_terminal();
                    for message in event.into_messages() {
                        self.send(Some(run_id.clone()), message).await;
                    }
                    if terminal {
                        break;
                    }
                }
                self.turn_over(&run_id, &start.session_id);
                self.run_spans_held().remove(&run_id);
            }
            .instrument(span),
        );
    }

    fn run_spans_held(&self) -> std::sync::MutexGuard<'_, HashMap<String, tracing::Span>> {
        self.run_spans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The span of the Run a frame names (none when it is not running here).
    fn run_span(&self, run_id: Option<&str>) -> tracing::Span {
        run_id
            .and_then(|id| self.run_spans_held().get(id).cloned())
            .unwrap_or_else(tracing::Span::none)
    }

    /// A Turn that never started still ends like any failed Turn: `error`, then `done`.
    async fn fail_run(&self, run_id: &str, code: &str, message: &str) {
        let error = ErrorEvent {
            code: code.to_owned(),
            message: message.to_owned(),
            http_status: None,
        };
        self.send(Some(run_id.to_owned()), error.into()).await;
        let done = Done {
            outcome: TurnOutcome::Failed,
            usage: None,
        };
        self.send(Some(run_id.to_owned()), done.into()).await;
    }

    async fn function_result(&self, id: Option<String>, result: FunctionResult) {
        let receipt = match self
            .sessions
            .control(id.as_deref().unwrap_or_default())
            .await
        {
            Some(control) => {
                control
                    .submit_function_result(&result.call_id, result.content())
                    .await
            }
            None => Receipt::refused(
                AdapterError::NoActiveTurn.code(),
                "no Turn of this Run is running on this Runtime",
            ),
        };
        let applied = matches!(receipt, Receipt::Confirmed);
        tracing::Span::current().record("receipt.applied", applied);
        self.send(id, receipt.into_ack(result.delivery_id).into())
            .await;
    }

    async fn steer(&self, id: Option<String>, steer: PromptSteer) {
        let outcome = match self
            .sessions
            .control(id.as_deref().unwrap_or_default())
            .await
        {
            Some(control) => control.steer(steer.input).await,
            None => Err(AdapterError::NoActiveTurn),
        };
        let ack = match outcome {
            Ok(()) => PromptSteerAck {
                input_id: steer.input_id,
                accepted: true,
                error_code: None,
                error: None,
            },
            Err(error) => PromptSteerAck {
                input_id: steer.input_id,
                accepted: false,
                error_code: Some(error.code().to_owned()),
                error: Some(error.to_string()),
            },
        };
        self.send(id, ack.into()).await;
    }

    /// A cancel has no ack of its own: the Turn's `done{cancelled}` settles it. Only a cancel
    /// that cannot be routed, or that the harness refused, is reported.
    async fn cancel(&self, id: Option<String>) {
        // A Turn still waiting for a process slot ends without reaching the harness.
        if self
            .sessions
            .cancel_queued(id.as_deref().unwrap_or_default())
        {
            return;
        }
        let outcome = match self
            .sessions
            .control(id.as_deref().unwrap_or_default())
            .await
        {
            Some(control) => control.cancel().await,
            None => Err(AdapterError::NoActiveTurn),
        };
        if let Err(error) = outcome {
            self.protocol_error(id, "prompt_cancel", error.code(), &error.to_string())
                .await;
        }
    }

    /// Core deleted the Session (it is only ever released then): its process ends and its
    /// state directory goes, with the harness home and transcripts in it, whether or not an
    /// executor is resident (an evicted Session, or one from before a restart, has only the
    /// directory). A Session with no executor here whose Codex thread lives in a shared home
    /// leaves that thread to the next process of the home to delete, and a shared home goes
    /// whole once no Session names it and no process lives on it
    /// ([`switchboard_codex::released`]). `released` answers once nothing of it is left.
    async fn release(&self, session_id: String) {
        // Evicting refuses a Session mid-Turn (Core deletes only idle Sessions); then the Turn's
        // task holds the last reference and the process is killed when that Turn ends.
        let here = match self.sessions.release(&session_id).await {
            Some(Err(error)) => {
                tracing::warn!(session = %session_id, %error, "release of a busy Session");
                true
            }
            Some(Ok(())) => true,
            None => false,
        };
        self.relays_held().remove(&session_id);
        self.workspaces.release(&session_id);
        // Off the async workers: a harness home can hold many files.
        let state_root = self.options.state_root.clone();
        let id = session_id.clone();
        let home =
            tokio::task::spawn_blocking(move || remove_state_dir(&state_root, &id, here)).await;
        match home {
            Ok(Some(home_dir)) => self.remove_home_if_unused(home_dir).await,
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(session = %session_id, %error, "removing a deleted Session's state")
            }
        }
        self.preparation(&session_id, PreparationState::Released, None)
            .await;
    }

    /// The shared home a released Session's thread lived in goes whole once no Session's state
    /// names it and no process lives on it (its last Session was released).
    async fn remove_home_if_unused(&self, home_dir: PathBuf) {
        let Some(host) = self
            .registry
            .codex()
            .and_then(|c| c.native().host().cloned())
        else {
            return;
        };
        let state_root = self.options.state_root.clone();
        let dir = home_dir.clone();
        let unused = move || !switchboard_codex::released::home_named(&state_root, &dir);
        if host.remove_if_unused(&home_dir, unused).await {
            tracing::debug!(home = %home_dir.display(), "removed a shared home no Session names");
        }
    }
}

/// Removes the state directory of the deleted Session `session_id` under `state_root`; for one
/// with no executor here (`here` false), first keeps its thread for deletion from a home
/// outside that directory. The directory of that home, if its thread lived in one.
fn remove_state_dir(state_root: &Path, session_id: &str, here: bool) -> Option<PathBuf> {
    if !is_safe_dir_name(session_id) {
        return None;
    }
    let dir = state_root.join(session_id);
    let home = if here {
        // Its executor deleted the thread, or kept it when no process could.
        switchboard_codex::released::foreign_home(&dir)
    } else {
        switchboard_codex::released::keep(&dir).unwrap_or_else(|e| {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot keep a released thread for deletion");
            None
        })
    };
    // A Session bound to a warm process keeps its state where that process started.
    crate::warm::remove_linked(&dir);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot remove a deleted Session's state")
        }
    }
    home
}

/// Session and Environment ids name directories, so only a safe alphabet is accepted.
pub(crate) fn is_safe_dir_name(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
