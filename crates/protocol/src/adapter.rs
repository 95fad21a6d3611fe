//! The boundary between the Runtime and one harness adapter.
//!
//! An [`Adapter`] turns a frozen [`SessionConfiguration`] into a [`SessionExecutor`]; the
//! executor runs Turns one at a time. Starting a Turn returns a [`TurnHandle`]: a stream of
//! [`AdapterEvent`]s that ends with exactly one terminal event, and a [`TurnControl`] to submit
//! function results, steer and cancel while the Turn runs.
//!
//! Executors are evictable: [`SessionExecutor::evict`] ends any native process of an idle
//! Session, and the next [`SessionExecutor::start_turn`] resumes it from the harness's own
//! persisted state, with the frozen configuration re-applied unchanged.
//!
//! Function results follow the receipt contract (core-contracts §3.3):
//! [`TurnControl::submit_function_result`] returns [`Receipt::Confirmed`] only when the adapter
//! saw the native harness apply exactly that result in the live Turn that made the call. Writing
//! it to the harness proves nothing by itself; a wait that times out is
//! [`Receipt::Unconfirmed`] (a later native application is still reported, as
//! [`AdapterEvent::LateFunctionResultApplied`]), and the adapter never replays a result.
//!
//! Nothing here depends on Core or the Runtime, so adapters depend on this crate only.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::configuration::HarnessId;
use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::capabilities::HarnessAdvertisement;
use crate::configuration::SessionConfiguration;
use crate::content::{FunctionResultContent, InputPart};
use crate::messages::{
    CallAbandoned, CommandExecution, CommandStatus, Delta, Done, ErrorEvent, FunctionCall,
    FunctionResultApplied, InteractionDecisionAck, MessagePhase, MessageStatus, OutputMessage,
    Reasoning, RuntimeToCore, TurnOutcome, Usage, WebSearchAction, WebSearchCall, WebSearchStatus,
};

/// What preparing a Session needs.
#[derive(Debug, Clone)]
pub struct PrepareRequest {
    pub session_id: String,
    pub configuration: SessionConfiguration,
    /// A directory the executor owns for the Session's native state (created if missing). It
    /// must survive eviction: resume reads the harness's persisted state from it.
    pub state_dir: PathBuf,
    /// Where the harness's processes run on a workspace placement; `None` on `environment:
    /// none` (the process runs in the state dir's own working directory). The Runtime sets it
    /// from the configuration's `workspace`; the adapter starts every process through it.
    pub placement: Option<ProcessPlacement>,
}

/// How the Runtime places a Session's native processes in its workspace.
#[derive(Clone, PartialEq, Eq)]
pub struct ProcessPlacement {
    /// The working directory as the harness sees it: the self-hosted `workspace_directory`, or
    /// `/workspace` inside a managed sandbox. Native settings that name the workspace (trusted
    /// project paths, MCP `cwd`) use this path.
    pub work_dir: PathBuf,
    /// Set for a managed workspace: every process starts inside this sandbox.
    pub sandbox: Option<Sandbox>,
    /// The Environment's values of the stdio MCP servers' `env_vars`, resolved by the Runtime
    /// (a managed workspace's `env`, a self-hosted Runtime's own environment). They join the
    /// harness's process environment, from which it passes them to the servers; never logged,
    /// never on a command line or in a file.
    pub mcp_env: Vec<(String, String)>,
    /// Set for a managed sandbox without network: the one way a server the adapter hosts for
    /// its harness (the ACP `functions` server) is reached from inside.
    pub loopback: Option<LoopbackBridge>,
}

/// A loopback port inside a network-less sandbox that reaches a Unix socket on the host: the
/// sandbox's relay listens on [`LoopbackBridge::inside`] and carries each connection to
/// [`LoopbackBridge::socket`], where the adapter serves. The sandbox's loopback is its own, so
/// a server on the host's loopback is not reachable any other way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopbackBridge {
    /// What the harness connects to, inside the sandbox (`127.0.0.1:<port>`).
    pub inside: std::net::SocketAddr,
    /// The host path the adapter binds its server to (the Runtime's relay directory).
    pub socket: PathBuf,
}

/// A bubblewrap sandbox a process is started in.
#[derive(Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The program and arguments that run a command inside the sandbox (`bwrap … --`): the
    /// harness binary and its own arguments follow. Holds no secret (argv is visible to every
    /// local user).
    pub wrapper: Vec<OsString>,
    /// Added to the sandboxed process's environment (the workspace's `env`, secrets). Never
    /// logged, never on a command line.
    pub env: Vec<(String, String)>,
}

impl fmt::Debug for ProcessPlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mcp_env: Vec<&str> = self.mcp_env.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ProcessPlacement")
            .field("work_dir", &self.work_dir)
            .field("sandbox", &self.sandbox)
            .field("mcp_env", &mcp_env)
            .field("loopback", &self.loopback)
            .finish()
    }
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.env.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Sandbox")
            .field("wrapper", &self.wrapper)
            .field("env", &names)
            .finish()
    }
}

/// One Turn's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRequest {
    pub run_id: String,
    pub turn_id: String,
    pub input: Vec<InputPart>,
}

/// A harness adapter.
#[async_trait]
pub trait Adapter: Send + Sync {
    fn harness(&self) -> HarnessId;

    /// Probes the installed harness and reports what the Runtime can advertise for it.
    async fn advertise(&self) -> HarnessAdvertisement;

    /// Validates the configuration and prepares an executor. No input is submitted.
    async fn prepare(
        &self,
        request: PrepareRequest,
    ) -> Result<Box<dyn SessionExecutor>, AdapterError>;
}

/// One Session's native execution.
#[async_trait]
pub trait SessionExecutor: Send + Sync {
    /// Starts a Turn (launching or resuming the native process when none is resident).
    /// Fails with [`AdapterError::Busy`] while another Turn runs.
    async fn start_turn(&self, turn: TurnRequest) -> Result<TurnHandle, AdapterError>;

    /// Ends the native process of an idle Session; its state stays on disk for resume.
    /// Fails with [`AdapterError::Busy`] while a Turn runs.
    async fn evict(&self) -> Result<(), AdapterError>;

    /// Whether a native process is currently held.
    fn is_resident(&self) -> bool;

    /// Ends the Session for good (Core deleted it): its process ends, and whatever of its state
    /// lives outside its state directory goes (the Runtime removes that directory after). By
    /// default an eviction: a Session whose state is all in its directory leaves nothing else.
    /// `may_start_process`: the release holds a process slot (the Session's own, or one the
    /// Runtime gave it after [`SessionExecutor::release_starts_process`]). Without one it starts
    /// no process, even when the one it expected has died since: what only a process could
    /// remove is then left for the harness's next process there. Fails with
    /// [`AdapterError::Busy`] while a Turn runs.
    async fn release(&self, may_start_process: bool) -> Result<(), AdapterError> {
        let _ = may_start_process;
        self.evict().await
    }

    /// Whether [`SessionExecutor::release`] would start a native process: the Session holds
    /// none, and what it must remove lives where only the harness can remove it (a Codex
    /// thread in a shared home). The Runtime then gives the release a process slot first, as
    /// it would a Turn, so that process counts against its live-process bound.
    fn release_starts_process(&self) -> bool {
        false
    }

    /// The harness's own identity for the Session (e.g. the Codex thread id), once known.
    fn native_session_id(&self) -> Option<String>;

    /// While the Session holds a thread on a process it shares with other Sessions, that
    /// process's id: the Runtime counts such a process once against its live-process bound,
    /// however many Sessions it hosts. `None` for a process of its own, or none.
    fn shared_process(&self) -> Option<u32> {
        None
    }
}

/// A running Turn.
pub struct TurnHandle {
    /// The Turn's events, in order, ending with exactly one terminal event.
    pub events: mpsc::Receiver<AdapterEvent>,
    pub control: Arc<dyn TurnControl>,
}

/// Input to a running Turn.
#[async_trait]
pub trait TurnControl: Send + Sync {
    /// Answers a pending function call of this Turn and waits for its application receipt.
    async fn submit_function_result(&self, call_id: &str, result: FunctionResultContent)
    -> Receipt;

    /// Adds input to the running Turn. `Ok` means the harness accepted it.
    async fn steer(&self, input: Vec<InputPart>) -> Result<(), AdapterError>;

    /// Asks the harness to stop the Turn. `Ok` means the request was accepted; settlement is the
    /// Turn's terminal [`AdapterEvent::Cancelled`].
    async fn cancel(&self) -> Result<(), AdapterError>;
}

/// What a Turn reports, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterEvent {
    /// An assistant message opened. `phase` is null when not known yet.
    MessageStarted {
        item_id: String,
        phase: Option<MessagePhase>,
    },
    MessageDelta {
        item_id: String,
        delta: String,
    },
    /// An assistant message closed with its whole text.
    MessageCompleted {
        item_id: String,
        phase: MessagePhase,
        text: String,
    },
    Reasoning {
        item_id: String,
        text: String,
    },
    CommandExecution {
        item_id: String,
        command: String,
        status: CommandStatus,
        exit_code: Option<i64>,
        output: Option<String>,
        cwd: Option<String>,
        duration_ms: Option<u64>,
    },
    /// A native web search started or ended (the same `item_id` both times).
    WebSearchCall {
        item_id: String,
        status: WebSearchStatus,
        action: Option<WebSearchAction>,
    },
    /// A native call to a declared MCP server started or ended (the same `item_id` both times).
    McpCall(crate::mcp::McpCall),
    /// A function call is pending: published before anything else about the call.
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    /// A submitted result was observed applied (its receipt is [`Receipt::Confirmed`]).
    FunctionResultApplied {
        call_id: String,
    },
    /// A submitted result whose receipt was already [`Receipt::Unconfirmed`] (the wait ran
    /// out) was observed applied later.
    LateFunctionResultApplied {
        call_id: String,
    },
    /// The harness dropped a pending call before any result was applied.
    CallAbandoned {
        call_id: String,
    },
    /// A cumulative usage snapshot for the Turn.
    Usage(Usage),
    /// Something a child of a multi-agent Turn did ([`crate::subagents`]).
    Subagent(crate::subagents::SubagentEvent),
    Completed {
        usage: Option<Usage>,
    },
    Failed {
        code: String,
        message: String,
        http_status: Option<u16>,
        usage: Option<Usage>,
    },
    Cancelled {
        usage: Option<Usage>,
    },
}

impl AdapterEvent {
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            AdapterEvent::Completed { .. }
                | AdapterEvent::Failed { .. }
                | AdapterEvent::Cancelled { .. }
        )
    }

    /// The protocol frames that report this event to Core (a terminal failure is `error` then
    /// `done`). [`AdapterEvent::FunctionResultApplied`] has none: the receipt travels as the
    /// `interaction_decision_ack` of the submission.
    pub fn into_messages(self) -> Vec<RuntimeToCore> {
        use AdapterEvent as E;
        match self {
            E::MessageStarted { item_id, phase } => vec![
                OutputMessage {
                    id: item_id,
                    status: MessageStatus::InProgress,
                    phase,
                    text: String::new(),
                }
                .into(),
            ],
            E::MessageDelta { item_id, delta } => vec![Delta { item_id, delta }.into()],
            E::MessageCompleted {
                item_id,
                phase,
                text,
            } => vec![
                OutputMessage {
                    id: item_id,
                    status: MessageStatus::Completed,
                    phase: Some(phase),
                    text,
                }
                .into(),
            ],
            E::Reasoning { item_id, text } => vec![Reasoning { item_id, text }.into()],
            E::CommandExecution {
                item_id,
                command,
                status,
                exit_code,
                output,
                cwd,
                duration_ms,
            } => {
                vec![
                    CommandExecution {
                        item_id,
                        command,
                        status,
                        exit_code,
                        output,
                        cwd,
                        duration_ms,
                    }
                    .into(),
                ]
            }
            E::WebSearchCall {
                item_id,
                status,
                action,
            } => vec![
                WebSearchCall {
                    item_id,
                    status,
                    action,
                }
                .into(),
            ],
            E::McpCall(call) => vec![call.into()],
            E::FunctionCall {
                call_id,
                name,
                arguments,
            } => {
                vec![
                    FunctionCall {
                        call_id,
                        name,
                        arguments,
                    }
                    .into(),
                ]
            }
            E::FunctionResultApplied { .. } => vec![],
            E::LateFunctionResultApplied { call_id } => {
                vec![FunctionResultApplied { call_id }.into()]
            }
            E::CallAbandoned { call_id } => vec![CallAbandoned { call_id }.into()],
            E::Usage(usage) => vec![usage.into()],
            E::Subagent(event) => vec![event.into_message()],
            E::Completed { usage } => {
                vec![
                    Done {
                        outcome: TurnOutcome::Completed,
                        usage,
                    }
                    .into(),
                ]
            }
            E::Failed {
                code,
                message,
                http_status,
                usage,
            } => vec![
                ErrorEvent {
                    code,
                    message,
                    http_status,
                }
                .into(),
                Done {
                    outcome: TurnOutcome::Failed,
                    usage,
                }
                .into(),
            ],
            E::Cancelled { usage } => {
                vec![
                    Done {
                        outcome: TurnOutcome::Cancelled,
                        usage,
                    }
                    .into(),
                ]
            }
        }
    }
}

/// The application receipt of a function result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receipt {
    /// The native harness applied exactly this result in the live Turn that made the call.
    Confirmed,
    /// The outcome is unknown (no matching observation in time, or the Turn ended first).
    Unconfirmed { reason: String },
    /// The adapter did not deliver the result (e.g. unknown or abandoned call).
    Refused { code: String, message: String },
}

/// `error_code` of an unconfirmed receipt.
pub const FUNCTION_RESULT_UNCONFIRMED: &str = "function_result_unconfirmed";

/// `error_code` of a refusal because the harness had abandoned the call: Core abandons the
/// call too, instead of failing the Turn (execution-tools "Abandonment").
pub const CALL_ABANDONED: &str = "call_abandoned";

impl Receipt {
    pub fn refused(code: &str, message: impl Into<String>) -> Self {
        Receipt::Refused {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// The `interaction_decision_ack` that reports this receipt.
    pub fn into_ack(self, delivery_id: impl Into<String>) -> InteractionDecisionAck {
        let delivery_id = delivery_id.into();
        match self {
            Receipt::Confirmed => InteractionDecisionAck {
                delivery_id,
                applied: true,
                error_code: None,
                error: None,
            },
            Receipt::Unconfirmed { reason } => InteractionDecisionAck {
                delivery_id,
                applied: false,
                error_code: Some(FUNCTION_RESULT_UNCONFIRMED.to_owned()),
                error: Some(reason),
            },
            Receipt::Refused { code, message } => InteractionDecisionAck {
                delivery_id,
                applied: false,
                error_code: Some(code),
                error: Some(message),
            },
        }
    }
}

/// Why an adapter operation failed. [`AdapterError::code`] is the wire `error_code`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdapterError {
    #[error("the harness is not installed or not usable: {0}")]
    Unavailable(String),
    #[error("the configuration cannot run on this harness: {0}")]
    InvalidConfiguration(String),
    #[error("another Turn is running on this Session")]
    Busy,
    #[error("no Turn is running")]
    NoActiveTurn,
    #[error("the harness could not be started: {0}")]
    Launch(String),
    #[error("the harness process exited")]
    Exited,
    #[error("the harness rejected the request: {message}")]
    Rejected { code: String, message: String },
    #[error("the harness did not answer in time: {0}")]
    Timeout(String),
}

impl AdapterError {
    pub fn code(&self) -> &str {
        match self {
            AdapterError::Unavailable(_) => "harness_unavailable",
            AdapterError::InvalidConfiguration(_) => "unsupported_or_invalid_configuration",
            AdapterError::Busy => "turn_in_progress",
            AdapterError::NoActiveTurn => "no_active_turn",
            AdapterError::Launch(_) => "harness_launch_failed",
            AdapterError::Exited => "harness_exited",
            AdapterError::Rejected { code, .. } => code,
            AdapterError::Timeout(_) => "request_timeout",
        }
    }
}

/// Shared handle type for a Turn's control.
pub type TurnControlRef = Arc<dyn TurnControl>;
