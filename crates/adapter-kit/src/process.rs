//! One hermetic native process, from spawn to shutdown.
//!
//! The process starts with an empty environment plus the host's `PATH` and exactly what the
//! adapter adds (its config locations, the provider key: never on the command line), in the
//! Session's working directory ([`StateDir::work_dir`]). Stdin and stdout are piped for the
//! adapter's protocol; stdin stays open for the process's whole life, since a harness exits when
//! it reads EOF. Stderr is appended to [`StateDir::stderr_log`], because harnesses log there
//! freely and an unread pipe would eventually block them. The child is killed if it is dropped,
//! so a process can never outlive its executor; [`NativeProcess::shutdown`] ends it on purpose.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use switchboard_protocol::ProcessPlacement;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use crate::state_dir::{StateDir, StateDirError};

/// How long a killed process gets to be reaped.
const REAP_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error(transparent)]
    StateDir(#[from] StateDirError),
    #[error("cannot start {binary}: {source}")]
    Spawn {
        binary: PathBuf,
        source: std::io::Error,
    },
}

/// A just-started process and its protocol pipes.
pub struct Spawned {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// Starts `binary` for the Session in `state` (whose folders must exist). `configure` adds the
/// arguments and the environment beyond `PATH`.
///
/// With a `placement` the process works in the workspace: in `work_dir` directly (self-hosted),
/// or inside the sandbox (managed), whose wrapper goes first on the command line and whose
/// `env` joins the environment (bubblewrap passes its environment on to the program it runs).
/// The child is then the wrapper, and ending the process kills only it, so the wrapper must
/// take the harness down with it: bubblewrap needs `--die-with-parent` and `--unshare-pid`
/// (checked: without them a killed `bwrap` leaves its program running).
pub fn spawn(
    binary: &Path,
    state: &StateDir,
    placement: Option<&ProcessPlacement>,
    configure: impl FnOnce(&mut Command),
) -> Result<Spawned, SpawnError> {
    let stderr_log = state.stderr_log();
    let stderr = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&stderr_log)
        .map_err(|source| StateDirError {
            path: stderr_log,
            source,
        })?;
    let sandbox = placement.and_then(|p| p.sandbox.as_ref());
    let mut command = match sandbox.and_then(|s| s.wrapper.split_first()) {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(binary);
            command
        }
        None => Command::new(binary),
    };
    command.env_clear().env(
        "PATH",
        std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
    );
    if let Some(sandbox) = sandbox {
        command.envs(sandbox.env.iter().map(|(k, v)| (k, v)));
    }
    if let Some(placement) = placement {
        command.envs(placement.mcp_env.iter().map(|(k, v)| (k, v)));
    }
    // The adapter's own variables (HOME, the provider key…) come last and win.
    configure(&mut command);
    // Inside a sandbox the wrapper sets the working directory; the host side needs one that
    // exists, and the state dir's is always there.
    let cwd = match placement {
        Some(p) if p.sandbox.is_none() => p.work_dir.clone(),
        _ => state.work_dir(),
    };
    command
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|source| SpawnError::Spawn {
        binary: binary.to_owned(),
        source,
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        unreachable!("stdin and stdout are piped above");
    };
    Ok(Spawned {
        child,
        stdin,
        stdout,
    })
}

/// A running, initialized process: the child, the adapter's connection over its stdio (`C`),
/// and the channel on which the connection's reader passes on what the harness sends (`I`).
pub struct NativeProcess<C, I> {
    pub child: Child,
    pub connection: Arc<C>,
    pub inbound: mpsc::UnboundedReceiver<I>,
}

impl<C, I> NativeProcess<C, I> {
    /// Ends the process: letting go of the connection closes stdin, which asks the harness to
    /// exit, and the kill makes sure it does. Harnesses persist what resume needs as they go, so
    /// a kill loses nothing.
    pub async fn shutdown(self) {
        end(self.child, self.connection).await;
    }
}

/// Ends a process given its child and connection (see [`NativeProcess::shutdown`]).
pub(crate) async fn end<C>(mut child: Child, connection: Arc<C>) {
    drop(connection);
    let _ = child.start_kill();
    let _ = tokio::time::timeout(REAP_TIMEOUT, child.wait()).await;
}
