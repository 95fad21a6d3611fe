//! One hermetic native process, from spawn to shutdown.
//!
//! The process starts with an empty environment plus the host's `PATH` and exactly what the
//! adapter adds (its config locations, the provider key: never on the command line), in the
//! Session's working directory ([`StateDir::work_dir`]). Stdin and stdout are piped for the
//! adapter's protocol; stdin stays open for the process's whole life, since a harness exits when
//! it reads EOF. Stderr is appended to [`StateDir::stderr_log`], because harnesses log there
//! freely and an unread pipe would eventually block them. The child leads a process group of its
//! own, and the whole group is killed when the [`HarnessChild`] is dropped or ended: a harness
//! that is a launcher (a Node script that starts the real binary, an agent that starts a model
//! helper) would otherwise leave what it started running after its executor is gone.
//! [`NativeProcess::shutdown`] ends it on purpose.
//!
//! A Session with no workspace has nothing of the host's to look at, yet its state directory
//! often lies inside a git checkout (the data directory defaults to `.switchboard` under the
//! directory `serve` runs in). Harnesses run `git` in their working directory every Turn and
//! report what it finds to the model provider: codex sends the checkout's path, its `HEAD` and
//! whether it has changes in a request header, and `git status` walks the whole checkout on
//! every Turn. So such a process gets `GIT_CEILING_DIRECTORIES` naming every directory above its
//! state directory ([`git_ceiling`]): git looks for a repository inside the Session's own
//! directories (one the model made there is found) and never above them.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use switchboard_protocol::ProcessPlacement;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use crate::cpu::{CpuLease, Cpus};
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

/// A harness process that leads its own process group: dropping it (or [`end`]) kills the
/// group, so nothing the harness started outlives it, unless that process left the group itself.
#[derive(Debug)]
pub struct HarnessChild {
    child: Child,
    /// The group's id, which is the leader's pid; `None` if the leader was already reaped when
    /// spawn returned (the group may still hold what it started, but its id is then unknown).
    group: Option<rustix::process::Pid>,
    /// The one CPU it is confined to ([`Cpus::One`]), counted while the child is held.
    _cpu: Option<CpuLease>,
}

impl HarnessChild {
    /// Takes `child`, which must have been spawned with `process_group(0)`, and its CPU.
    pub(crate) fn new(child: Child, cpu: Option<CpuLease>) -> Self {
        let group = child
            .id()
            .and_then(|id| rustix::process::Pid::from_raw(id.try_into().ok()?));
        Self {
            child,
            group,
            _cpu: cpu,
        }
    }

    /// SIGKILL to every process in the group. A group whose members have all exited is gone and
    /// the call fails with ESRCH, which is the outcome wanted. (Linux reuses no pid while a group
    /// of that id has members; once it has none, reuse needs the whole pid space to wrap first.)
    pub fn kill_group(&self) {
        if let Some(group) = self.group {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    }
}

impl Deref for HarnessChild {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.child
    }
}

impl DerefMut for HarnessChild {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for HarnessChild {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// A just-started process and its protocol pipes.
pub struct Spawned {
    pub child: HarnessChild,
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
///
/// `cpus` says whether the process gets one CPU of its own ([`crate::cpu`]).
pub fn spawn(
    binary: &Path,
    state: &StateDir,
    placement: Option<&ProcessPlacement>,
    cpus: Cpus,
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
    match placement {
        Some(placement) => {
            command.envs(placement.mcp_env.iter().map(|(k, v)| (k, v)));
        }
        None => {
            command.env("GIT_CEILING_DIRECTORIES", git_ceiling(state.root())?);
        }
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
        // Its own group, so ending it reaches what it started (see [`HarnessChild`]).
        .process_group(0)
        .kill_on_drop(true);
    let cpu = match cpus {
        Cpus::One => CpuLease::take(),
        Cpus::Any => None,
    };
    let spawned = match &cpu {
        Some(cpu) => cpu.confining(|| command.spawn()),
        None => command.spawn(),
    };
    let mut child = spawned.map_err(|source| SpawnError::Spawn {
        binary: binary.to_owned(),
        source,
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        unreachable!("stdin and stdout are piped above");
    };
    Ok(Spawned {
        child: HarnessChild::new(child, cpu),
        stdin,
        stdout,
    })
}

/// Every directory above the state directory `root`, absolute and with symbolic links resolved
/// (as git compares them), joined by `:`. Git stops its search for a repository before it
/// enters any of them: from a working directory in `root` it looks no higher than `root`, and
/// from one elsewhere under those directories (a Session's own, when `root` is a process that
/// Sessions share) no higher than the directory just below the nearest of them. A path git
/// cannot list (one holding `:`) leaves the variable empty.
fn git_ceiling(root: &Path) -> Result<std::ffi::OsString, StateDirError> {
    let real = std::fs::canonicalize(root).map_err(|source| StateDirError {
        path: root.to_owned(),
        source,
    })?;
    let above: Vec<&Path> = real.ancestors().skip(1).collect();
    Ok(std::env::join_paths(above).unwrap_or_default())
}

/// A running, initialized process: the child, the adapter's connection over its stdio (`C`),
/// and the channel on which the connection's reader passes on what the harness sends (`I`).
pub struct NativeProcess<C, I> {
    pub child: HarnessChild,
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
pub(crate) async fn end<C>(mut child: HarnessChild, connection: Arc<C>) {
    drop(connection);
    child.kill_group();
    let _ = child.start_kill();
    let _ = tokio::time::timeout(REAP_TIMEOUT, child.wait()).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, BufReader};

    /// Whether `pid` is still a process that runs (a zombie has already died).
    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
            !matches!(state, Some(Some('Z' | 'X')))
        })
    }

    async fn until_gone(pid: u32) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while running(pid) {
            assert!(tokio::time::Instant::now() < deadline, "{pid} still runs");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// A launcher that starts the real program: the grandchild it started goes with it.
    async fn launcher() -> (HarnessChild, u32) {
        let mut child = Command::new("sh")
            .args(["-c", "sleep 300 & echo $!; wait"])
            .stdout(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await.unwrap();
        let grandchild: u32 = line.trim().parse().unwrap();
        assert!(running(grandchild));
        (HarnessChild::new(child, None), grandchild)
    }

    /// What `git rev-parse --show-toplevel` prints when [`spawn`] runs it for the state
    /// directory `root` with no placement, from `cwd` (the state directory's working directory
    /// when `None`).
    async fn toplevel(root: &Path, cwd: Option<&Path>) -> String {
        let state = StateDir::new(root.to_owned(), "git");
        state.create_dirs(&[]).unwrap();
        let spawned = spawn(Path::new("git"), &state, None, Cpus::Any, |command| {
            if let Some(cwd) = cwd {
                command.arg("-C").arg(cwd);
            }
            command.args(["rev-parse", "--show-toplevel"]);
        })
        .unwrap();
        drop(spawned.stdin);
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut BufReader::new(spawned.stdout), &mut out)
            .await
            .unwrap();
        out.trim().to_owned()
    }

    fn git(dir: &Path, args: &[&str]) {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// A state directory inside a checkout (the host's, say, when the data directory lies in
    /// it): git run by the harness finds no repository, but one made in the Session's own
    /// directories is found, and a shared process's ceiling also covers its Sessions' folders.
    #[tokio::test]
    async fn git_never_finds_a_repository_above_the_state_directory() {
        let host = tempfile::tempdir().unwrap();
        git(host.path(), &["init", "-q"]);
        let sessions = host.path().join("data/sessions");
        let own = sessions.join("sess_1");
        assert_eq!(toplevel(&own, None).await, "");

        let project = own.join("work/project");
        std::fs::create_dir_all(&project).unwrap();
        git(&project, &["init", "-q"]);
        let found = toplevel(&own, Some(&project)).await;
        assert_eq!(Path::new(&found), project.canonicalize().unwrap());

        // A process shared by Sessions lives in a sibling folder; its threads work in theirs.
        let shared = sessions.join(".shared/key");
        assert_eq!(toplevel(&shared, Some(&own.join("work"))).await, "");
    }

    #[tokio::test]
    async fn dropping_the_child_kills_what_it_started() {
        let (child, grandchild) = launcher().await;
        drop(child);
        until_gone(grandchild).await;
    }

    #[tokio::test]
    async fn ending_the_child_kills_what_it_started() {
        let (child, grandchild) = launcher().await;
        end(child, Arc::new(())).await;
        until_gone(grandchild).await;
    }
}
