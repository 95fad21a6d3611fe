//! Starting one hermetic `codex app-server` process for a Session.
//!
//! The process is hermetic ([`switchboard_adapter_kit::process`]): an empty environment plus
//! `PATH`, a `HOME` and a `CODEX_HOME` inside the Session's state directory (so nothing is read
//! from or written to the host user's codex setup, and every Session has its own rollouts to
//! resume from), and the provider key in [`API_KEY_ENV`], never on the command line.
//!
//! After spawning, the client sends `initialize` with `experimentalApi` (which `dynamicTools`
//! requires) and the `initialized` notification, then deletes the threads released Sessions
//! left in the home ([`crate::released`]). Stdin stays open for the process's whole life:
//! codex exits when it reads EOF.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_adapter_kit::cpu::Cpus;
use switchboard_adapter_kit::process::{self, NativeProcess, SpawnError, Spawned};
use switchboard_adapter_kit::state_dir::StateDir;
use switchboard_protocol::{ProcessPlacement, SessionConfiguration};

use crate::jsonrpc::{Connection, Inbound, RpcError};
use crate::overrides::API_KEY_ENV;

/// How long codex may take to answer a control request (initialize, thread/start, …).
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

/// A Session's state directory with codex's own home in it.
#[derive(Debug, Clone)]
pub struct StateLayout(StateDir);

impl Deref for StateLayout {
    type Target = StateDir;
    fn deref(&self) -> &StateDir {
        &self.0
    }
}

impl StateLayout {
    pub fn new(root: PathBuf) -> Self {
        StateLayout(StateDir::new(root, "codex"))
    }
    /// codex's own home: config, rollouts (`sessions/`), sqlite state.
    pub fn codex_home(&self) -> PathBuf {
        self.join("codex-home")
    }
}

/// The file in the state directory that keeps the thread id across evictions.
pub const THREAD_ID_FILE: &str = "thread-id";

/// The file in the state directory that names the `CODEX_HOME` the thread lives in: the
/// Session's own, or a shared process's ([`crate::host`]). Absent for a thread recorded before
/// there were shared processes, which lives in the Session's own.
pub const THREAD_HOME_FILE: &str = "thread-home";

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("codex did not initialize: {0}")]
    Initialize(#[from] RpcError),
}

/// Every `-c` override of a Session's launches: its configuration ([`crate::overrides`]) and
/// its MCP servers ([`crate::mcp`]).
pub fn launch_overrides(
    config: &switchboard_protocol::SessionConfiguration,
    placement: Option<&ProcessPlacement>,
) -> Vec<String> {
    crate::overrides::config_overrides(config, placement.is_some())
        .into_iter()
        .chain(crate::mcp::overrides(config))
        .collect()
}

/// Turns off codex's remote control, through which a ChatGPT account drives an app-server from
/// chatgpt.com; Switchboard is the only client of the processes it starts. Without a ChatGPT
/// login, codex 0.171.0 otherwise waits for one for as long as the process lives: it reloads its
/// auth file and logs two rows into its log database about once a second. An idle process took
/// 0.67-0.86 ms of CPU per second that way, and 0.04-0.10 ms with this set
/// (`docs/benchmarks.md`, session 23).
const REMOTE_CONTROL_DISABLED: &str = "CODEX_INTERNAL_APP_SERVER_REMOTE_CONTROL_DISABLED";

/// A running, initialized app-server.
pub type CodexProcess = NativeProcess<Connection, Inbound>;

/// The CPUs of a process that serves one Session (its own, or a warm one): one of its own
/// ([`switchboard_adapter_kit::cpu`]) when the Session has no workspace and no Subagents. Such
/// a codex starts little beside itself: `git` in its working directory, and the model's
/// commands read-only in the Session's own empty folder; codex confined to one CPU spent 7–30 %
/// less CPU per Turn (`docs/benchmarks.md`, sessions 25 and 26). In a workspace it runs the
/// model's commands on the user's files, and with Subagents it runs several agents' Turns at
/// once: both would be held to the one CPU, so those processes keep every CPU, as a shared
/// process ([`crate::host`]) does.
pub fn own_process_cpus(
    config: &SessionConfiguration,
    placement: Option<&ProcessPlacement>,
) -> Cpus {
    if placement.is_none() && config.execution_controls.subagents.is_none() {
        Cpus::One
    } else {
        Cpus::Any
    }
}

/// Spawns and initializes codex, in the workspace when there is a `placement`, on `cpus`.
pub async fn launch(
    binary: &Path,
    layout: &StateLayout,
    placement: Option<&ProcessPlacement>,
    cpus: Cpus,
    overrides: &[String],
    api_key: &str,
) -> Result<CodexProcess, LaunchError> {
    layout
        .create_dirs(&[layout.codex_home()])
        .map_err(SpawnError::from)?;
    let Spawned {
        child,
        stdin,
        stdout,
    } = process::spawn(binary, layout, placement, cpus, |command| {
        command.arg("app-server");
        for o in overrides {
            command.arg("-c").arg(o);
        }
        command
            .env("HOME", layout.root())
            .env("CODEX_HOME", layout.codex_home())
            .env(API_KEY_ENV, api_key)
            .env("RUST_LOG", "warn")
            .env(REMOTE_CONTROL_DISABLED, "1");
    })?;
    let (connection, inbound) = Connection::start(stdin, stdout);
    connection
        .request("initialize", initialize_params(), CONTROL_TIMEOUT)
        .await?;
    connection.notify("initialized", None).await?;
    crate::released::delete_kept(&connection, layout).await;
    Ok(NativeProcess {
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
