//! Starting one hermetic `claude` process for a Session.
//!
//! The process is hermetic ([`switchboard_adapter_kit::process`]): an empty environment plus
//! `PATH` and [`crate::flags::environment`], in the Session's fixed working directory. Stdin
//! stays open for the process's whole life: each Turn is a further `user` line, and closing
//! stdin ends the process.
//!
//! After spawning, the client sends the control protocol's `initialize` with `sdkMcpServers`
//! naming the `functions` server, and waits for its answer, so a binary that cannot start fails
//! the launch rather than the first Turn. claude lists the server's tools during start-up; the
//! reader answers that on its own.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use switchboard_adapter_kit::cpu::Cpus;
use switchboard_adapter_kit::process::{self, NativeProcess, SpawnError, Spawned};
use switchboard_protocol::{ProcessPlacement, SessionConfiguration};

use crate::flags::{self, FUNCTIONS_SERVER, NativeSession, ToolProfile};
use crate::functions::FunctionServer;
use crate::layout::StateLayout;
use crate::mcp::McpPlan;
use crate::stream::{Connection, Inbound, PermissionPolicy, StreamError};
use crate::workspace_tools;

/// How long claude may take to answer a control request (initialize, interrupt).
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("claude did not initialize: {0}")]
    Initialize(#[from] StreamError),
}

/// A running, initialized claude.
pub type ClaudeProcess = NativeProcess<Connection, Inbound>;

/// Spawns and initializes claude for the Session, in the workspace when there is a
/// `placement` (its working directory is the workspace's, and so the key of its transcripts).
pub async fn launch(
    binary: &Path,
    layout: &StateLayout,
    config: &SessionConfiguration,
    placement: Option<&ProcessPlacement>,
    mcp: &McpPlan,
    session: NativeSession<'_>,
) -> Result<ClaudeProcess, LaunchError> {
    let profile = ToolProfile::at(placement);
    layout.create().map_err(SpawnError::from)?;
    if let Some(instructions) = &config.instructions {
        layout
            .write_file(&layout.instructions_file(), instructions)
            .map_err(SpawnError::from)?;
    }
    let Spawned {
        child,
        stdin,
        stdout,
    } = process::spawn(
        binary,
        layout,
        placement,
        // Every CPU: confined to one, Claude Code took 40-90 % longer per Turn, its runtime's
        // compiler and collector threads running beside it (`docs/benchmarks.md`, session 25).
        Cpus::Any,
        |command| {
            command
                .args(arguments(config, mcp, layout, session, profile))
                .envs(flags::environment(config, layout, profile));
        },
    )?;
    let server = Arc::new(FunctionServer::new(&config.function_tools));
    let mut allowed = flags::allowed_tools(config);
    allowed.extend(mcp.approvals());
    let policy = PermissionPolicy {
        allowed,
        all_except: (profile == ToolProfile::Workspace).then(|| {
            workspace_tools::withheld(config)
                .into_iter()
                .map(str::to_owned)
                .collect()
        }),
    };
    let (connection, inbound) = Connection::start(stdin, stdout, server, policy);
    let servers: Vec<&str> = if config.function_tools.is_empty() {
        vec![]
    } else {
        vec![FUNCTIONS_SERVER]
    };
    let initialized = connection
        .request(
            json!({"subtype": "initialize", "sdkMcpServers": servers}),
            CONTROL_TIMEOUT,
        )
        .await;
    let process = NativeProcess {
        child,
        connection,
        inbound,
    };
    match initialized {
        Ok(_) => Ok(process),
        Err(error) => {
            process.shutdown().await;
            Err(error.into())
        }
    }
}

/// The command line: the configuration's flags with the Session's MCP servers added.
fn arguments(
    config: &SessionConfiguration,
    mcp: &McpPlan,
    layout: &StateLayout,
    session: NativeSession<'_>,
    profile: ToolProfile,
) -> Vec<String> {
    let mut args = flags::arguments(config, layout, session, profile);
    mcp.extend_arguments(&mut args);
    args
}
