//! Starting one hermetic `codex app-server` process for a Session.
//!
//! The process gets an empty environment plus exactly what it needs: `PATH`, a `HOME` and a
//! `CODEX_HOME` inside the Session's state directory (so nothing is read from or written to the
//! host user's codex setup, and every Session has its own rollouts to resume from), and the
//! provider key in [`API_KEY_ENV`]. The key never appears on the command line. Stderr goes to a
//! log file in the state directory, because codex logs there freely and an unread pipe would
//! eventually block it.
//!
//! After spawning, the client sends `initialize` with `experimentalApi` (which `dynamicTools`
//! requires) and the `initialized` notification. Stdin stays open for the process's whole life:
//! codex exits when it reads EOF.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::jsonrpc::{Connection, Inbound, RpcError};
use crate::overrides::API_KEY_ENV;

/// How long codex may take to answer a control request (initialize, thread/start, …).
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

/// The folders of a Session's state directory.
#[derive(Debug, Clone)]
pub struct StateLayout {
    pub root: PathBuf,
}

impl StateLayout {
    pub fn new(root: PathBuf) -> Self {
        StateLayout { root }
    }
    /// codex's own home: config, rollouts (`sessions/`), sqlite state.
    pub fn codex_home(&self) -> PathBuf {
        self.root.join("codex-home")
    }
    /// The working directory of the thread (the Session has no workspace).
    pub fn work_dir(&self) -> PathBuf {
        self.root.join("work")
    }
    /// Where the thread id is kept across evictions.
    pub fn thread_id_file(&self) -> PathBuf {
        self.root.join("thread-id")
    }
    pub fn stderr_log(&self) -> PathBuf {
        self.root.join("codex-stderr.log")
    }

    pub fn create(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(self.codex_home())?;
        std::fs::create_dir_all(self.work_dir())
    }
}

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
    #[error("codex did not initialize: {0}")]
    Initialize(#[from] RpcError),
}

/// A running, initialized app-server.
pub struct CodexProcess {
    pub child: Child,
    pub connection: Arc<Connection>,
    pub inbound: mpsc::UnboundedReceiver<Inbound>,
}

/// Spawns and initializes codex.
pub async fn launch(
    binary: &Path,
    layout: &StateLayout,
    overrides: &[String],
    api_key: &str,
) -> Result<CodexProcess, LaunchError> {
    layout.create().map_err(|source| LaunchError::StateDir {
        path: layout.root.clone(),
        source,
    })?;
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(layout.stderr_log())
        .map_err(|source| LaunchError::StateDir {
            path: layout.stderr_log(),
            source,
        })?;

    let mut command = Command::new(binary);
    command.arg("app-server");
    for o in overrides {
        command.arg("-c").arg(o);
    }
    command
        .env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        )
        .env("HOME", &layout.root)
        .env("CODEX_HOME", layout.codex_home())
        .env(API_KEY_ENV, api_key)
        .env("RUST_LOG", "warn")
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
    let (connection, inbound) = Connection::start(stdin, stdout);
    connection
        .request("initialize", initialize_params(), CONTROL_TIMEOUT)
        .await?;
    connection.notify("initialized", None).await?;
    Ok(CodexProcess {
        child,
        connection,
        inbound,
    })
}

fn initialize_params() -> Value {
    json!({
        "clientInfo": {
            "name": "switchboard",
            "title": "Switchboard",
            "version": env!("CARGO_PKG_VERSION"),
        },
        // dynamicTools on thread/start is experimental API in codex 0.171.0.
        "capabilities": {"experimentalApi": true, "requestAttestation": false},
    })
}

impl CodexProcess {
    /// Ends the process: closing stdin asks it to exit; the kill makes sure it does.
    pub async fn shutdown(mut self) {
        drop(self.connection);
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}
