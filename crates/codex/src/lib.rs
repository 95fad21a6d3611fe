//! The Codex adapter: Sessions on the native `codex app-server`.
//!
//! One hermetic app-server process per Session executor, driven over JSON-RPC on JSONL stdio
//! (protocol v2 of the pinned codex). The pieces, each in its own module:
//!
//! - [`binary`]: the pinned version and where its native binary is.
//! - [`overrides`]: the frozen configuration as `-c` config overrides (provider, web search,
//!   code mode, …), re-applied on every launch.
//! - [`mcp`]: the Session's MCP servers in `[mcp_servers]`, `mcpToolCall` as `mcp_call`.
//! - [`managed`]: codex's managed requirements, checked before a thread starts or resumes.
//! - [`launch`]: the hermetic process (own `CODEX_HOME`, empty environment) and `initialize`.
//! - [`host`]: Sessions sharing one process, a thread each, when their process-wide settings
//!   are equal (`Codex::with_shared_processes`); [`demux`] splits its stream by thread;
//!   [`released`]: released Sessions' threads that the next process of their home deletes.
//! - [`jsonrpc`]: framing, request/response matching, the inbound channel.
//! - [`resume`]: `thread/start` with the dynamic tools, or `thread/resume` after eviction.
//! - [`workspace`]: the thread's working directory, codex's sandbox and approvals per
//!   placement, and the trusted workspace.
//! - [`dynamic_tools`]: functions as dynamic tools, results as `contentItems`.
//! - [`receipts`]: confirming a result only on its matching native observation.
//! - [`events`]: codex notifications as adapter events (phases, usage, error codes).
//! - [`subagents`]: codex's native multi-agent feature as Subagent observations.
//! - [`turn`]: the per-Turn driver: calls, cancel, steer, deadline.
//! - [`executor`]: the [`SessionExecutor`], evictable.
//! - [`warm`]: started, initialized processes that belong to no Session yet, and binding one;
//!   [`primer`]: the throwaway Turn each runs first, on a loopback sink.
//!
//! What is not codex's (the `Adapter` itself, the hermetic process, the executor's process slot,
//! the Turn loop with its deadline and commands, the receipt table, JSON lines) is
//! `switchboard_adapter_kit`'s: this crate declares the harness ([`NativeHarness`]) and speaks
//! its protocol.

pub mod binary;
pub mod demux;
pub mod dynamic_tools;
pub mod events;
pub mod executor;
pub mod host;
pub mod jsonrpc;
pub mod launch;
pub mod managed;
pub mod mcp;
pub mod overrides;
pub mod primer;
pub mod receipts;
pub mod released;
pub mod resume;
pub mod subagents;
pub mod turn;
pub mod warm;
pub mod workspace;

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use switchboard_adapter_kit::adapter::{Launch, NativeAdapter, NativeHarness};
use switchboard_adapter_kit::binary::PinnedBinary;
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::{AdapterError, Capabilities, SessionConfiguration, SessionExecutor};

pub use binary::PINNED_VERSION;
pub use executor::CodexExecutor;
pub use switchboard_adapter_kit::turn::DEFAULT_TURN_DEADLINE;

/// The Codex [`Adapter`](switchboard_protocol::Adapter).
pub type CodexAdapter = NativeAdapter<Codex>;

/// What codex adds to the shared adapter: where its managed requirements are read from, and
/// whether Sessions share processes.
#[derive(Clone)]
pub struct Codex {
    managed_dir: PathBuf,
    /// The shared processes, when Sessions share them ([`host`]).
    host: Option<Arc<host::ProcessHost>>,
}

impl Default for Codex {
    fn default() -> Self {
        Codex {
            managed_dir: PathBuf::from(managed::SYSTEM_DIR),
            host: None,
        }
    }
}

impl std::fmt::Debug for Codex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Codex")
            .field("managed_dir", &self.managed_dir)
            .field("shares_processes", &self.host.is_some())
            .finish()
    }
}

impl Codex {
    /// Codex with its managed files read from `dir` (codex's own is `/etc/codex`).
    pub fn with_managed_dir(dir: PathBuf) -> Self {
        Codex {
            managed_dir: dir,
            host: None,
        }
    }

    /// The same, with shareable Sessions sharing processes whose homes live under `root`
    /// ([`host`]).
    pub fn with_shared_processes(mut self, root: PathBuf) -> Self {
        self.host = Some(Arc::new(host::ProcessHost::new(root)));
        self
    }

    /// The shared processes, when Sessions share them.
    pub fn host(&self) -> Option<&Arc<host::ProcessHost>> {
        self.host.as_ref()
    }

    /// Where codex's managed requirements are read from.
    pub fn managed_dir(&self) -> &std::path::Path {
        &self.managed_dir
    }
}

#[async_trait]
impl NativeHarness for Codex {
    const HARNESS: HarnessId = HarnessId::Codex;
    const PINNED: PinnedBinary = binary::PINNED;

    /// What this adapter implements, for the Runtime's advertisement.
    fn capabilities() -> Capabilities {
        Capabilities {
            streaming: true,
            usage: true,
            resume: true,
            native_session_recovery: true,
            steering: true,
            message_items: true,
            tool_observations: true,
            environment_none: true,
            preparation: true,
            programmatic_tool_calling_disable: true,
            web_search_control: true,
            execution_controls: true,
            text_verbosity: true,
            structured_output: true,
            tool_search: true,
            message_images: true,
            function_result_images: true,
            durable_input_receipts: true,
            durable_turns: true,
            function_tools: true,
            subagent_control: true,
            // Children are observed from their own threads (`subagents`).
            subagent_observations: true,
            // Workspaces: the harness works in the placement's directory (self-hosted) or
            // inside its sandbox (managed: the Runtime withdraws this without bubblewrap).
            local_environment: true,
            workspace_authoring: true,
            workspace_read_preparation: true,
            workspace_output_export: true,
            managed_workspace: true,
            mcp_http_tools: true,
            mcp_http_required: true,
            mcp_http_bearer_auth: true,
            ..Capabilities::default()
        }
    }

    fn validate(config: &SessionConfiguration) -> Result<(), AdapterError> {
        validate(config)
    }

    async fn prepare(&self, launch: Launch) -> Result<Box<dyn SessionExecutor>, AdapterError> {
        let executor =
            CodexExecutor::prepare(launch, self.managed_dir.clone(), self.host.clone()).await?;
        Ok(Box::new(executor))
    }
}

/// Rejects what this adapter cannot run, before any process starts. Every rule here is also
/// refused at Session admission first, from the Codex declaration or the capability gate
/// (`switchboard/tests/admission_table.rs` runs each rule against admission).
pub fn validate(config: &SessionConfiguration) -> Result<(), AdapterError> {
    if config.harness != HarnessId::Codex {
        return Err(AdapterError::InvalidConfiguration(
            "the Session does not select codex".into(),
        ));
    }
    if config.model_provider.protocol != ProviderProtocol::Responses {
        return Err(AdapterError::InvalidConfiguration(
            "codex needs a model provider that speaks the Responses protocol".into(),
        ));
    }
    mcp::validate(config)?;
    dynamic_tools::validate_names(&config.function_tools)
        .map_err(AdapterError::InvalidConfiguration)
}
