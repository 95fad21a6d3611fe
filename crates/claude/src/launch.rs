//! Starting one hermetic `claude` process for a Session.
//!
//! The process gets an empty environment plus [`crate::flags::environment`], runs in the
//! Session's fixed working directory, and writes stderr to a log file in the state directory (an
//! unread pipe would eventually block it). Stdin stays open for the process's whole life: each
//! Turn is a further `user` line, and closing stdin ends the process.
//!
//! After spawning, the client sends the control protocol's `initialize` with `sdkMcpServers`
//! naming the `functions` server, and waits for its answer, so a binary that cannot start fails
//! the launch rather than the first Turn. claude lists the server's tools during start-up; the
//! reader answers that on its own.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use switchboard_protocol::SessionConfiguration;
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::flags::{self, FUNCTIONS_SERVER, NativeSession};
use crate::functions::FunctionServer;
use crate::layout::StateLayout;
use crate::stream::{Connection, Inbound, PermissionPolicy, StreamError};

/// How long claude may take to answer a control request (initialize, interrupt).
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot prepare the state directory {path}: {source}")]
    StateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start {binary}: {source}")]
    Spawn {
        binary: PathBuf,
        source: std::io::Error,
    },
    #[error("claude did not initialize: {0}")]
    Initialize(#[from] StreamError),
}

/// A running, initialized claude.
pub struct ClaudeProcess {
    pub child: Child,
    pub connection: Arc<Connection>,
    pub inbound: mpsc::UnboundedReceiver<Inbound>,
}

/// Spawns and initializes claude for the Session.
pub async fn launch(
    binary: &Path,
    layout: &StateLayout,
    config: &SessionConfiguration,
    session: NativeSession<'_>,
) -> Result<ClaudeProcess, LaunchError> {
    let state_dir = |source| LaunchError::StateDir {
        path: layout.root.clone(),
        source,
    };
    layout.create().map_err(state_dir)?;
    if let Some(instructions) = &config.instructions {
        std::fs::write(layout.instructions_file(), instructions).map_err(state_dir)?;
    }
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(layout.stderr_log())
        .map_err(state_dir)?;

    let mut command = Command::new(binary);
    command
        .args(flags::arguments(config, layout, session))
        .env_clear()
        .envs(flags::environment(config, layout))
        .current_dir(layout.work_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|source| LaunchError::Spawn {
        binary: binary.to_owned(),
        source,
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        unreachable!("stdin and stdout are piped above");
    };
    let server = Arc::new(FunctionServer::new(&config.function_tools));
    let policy = PermissionPolicy {
        allowed: flags::allowed_tools(config),
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
    let process = ClaudeProcess {
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

impl ClaudeProcess {
    /// Ends the process. Its transcript is already on disk (claude appends as it goes), so a
    /// kill loses nothing `--resume` needs.
    pub async fn shutdown(self) {
        shutdown(self.child, self.connection).await;
    }
}

/// Ends a process given its parts.
pub async fn shutdown(mut child: Child, connection: Arc<Connection>) {
    drop(connection);
    let _ = child.start_kill();
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
}
