//! Workspace test support: real `bwrap` (or a loud skip), managed workspace configurations,
//! `workspace_*` requests, and running real processes in a placement's sandbox.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use base64::Engine;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{PreparationState, PreparationStatus, WorkspaceResult};
use switchboard_protocol::workspace::{
    NetworkAccess, SetupCommand, Workspace, WorkspaceFile, WorkspacePlacement,
};
use switchboard_protocol::{CoreToRuntime, ProcessPlacement, RuntimeToCore};
use switchboard_runtime::workspace::sandbox::Bwrap;
use switchboard_runtime::workspace::{WorkspaceOptions, Workspaces};
use switchboard_runtime::{LocalRuntime, Locator, Registry};

use super::{WAIT, next_frame, runtime_options, send};

/// A working `bwrap`, or `None` (with a loud SKIPPED line) outside CI. In CI (`CI=true`) a
/// machine without one fails the test.
pub fn bwrap(test: &str) -> Option<Bwrap> {
    if let Some(bwrap) = Bwrap::probe() {
        return Some(bwrap);
    }
    let message = "bwrap is missing or cannot build a sandbox here (scripts/setup.sh installs it)";
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}

pub fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

pub fn file(path: &str, text: &str) -> WorkspaceFile {
    WorkspaceFile {
        path: path.to_owned(),
        data: b64(text),
    }
}

pub fn setup(command: &str) -> SetupCommand {
    SetupCommand {
        command: command.to_owned(),
        cwd: None,
    }
}

/// A managed workspace of `environment_id`.
pub fn managed(environment_id: &str, network: NetworkAccess) -> Workspace {
    Workspace {
        environment_id: environment_id.to_owned(),
        placement: WorkspacePlacement::Managed,
        directory: "/workspace".to_owned(),
        capability_directories: vec![],
        network,
        env: BTreeMap::new(),
        files: vec![],
        setup_commands: vec![],
    }
}

/// Where the Runtime on data dir `data` keeps the managed workspace of `environment_id`.
pub fn managed_dir(data: &Path, environment_id: &str) -> PathBuf {
    data.join("environments")
        .join(environment_id)
        .join("workspace")
}

/// A LocalRuntime on data dir `data` with no harness installed: enough for workspace frames
/// and for preparations that fail before any harness starts.
pub fn plain_runtime(data: &Path) -> LocalRuntime {
    let registry = Registry::standard(Locator::new(data));
    LocalRuntime::start(std::sync::Arc::new(registry), runtime_options(data))
}

/// The Runtime's workspaces on data dir `data`, as the frame loop builds them.
pub fn workspaces(data: &Path, bwrap: Bwrap) -> Workspaces {
    let mut options = WorkspaceOptions::for_data_dir(data);
    options.relay_command = runtime_options(data).workspaces.relay_command;
    Workspaces::new(options, Some(bwrap))
}

/// Sends a `workspace_*` request with frame id `id` and returns its `workspace_result`, which
/// must carry the same id.
pub async fn request(
    runtime: &mut LocalRuntime,
    id: &str,
    message: impl Into<CoreToRuntime>,
) -> WorkspaceResult {
    send(runtime, id, message).await;
    let frame = next_frame(runtime).await;
    assert_eq!(frame.id.as_deref(), Some(id), "{frame:?}");
    let RuntimeToCore::WorkspaceResult(result) = frame.message else {
        panic!("expected workspace_result, got {frame:?}");
    };
    result
}

/// The `preparation_status` frames of `session_id` until a terminal one (`ready`, `failed`).
pub async fn preparation(runtime: &mut LocalRuntime, session_id: &str) -> Vec<PreparationStatus> {
    let mut states = Vec::new();
    loop {
        let frame: Envelope<RuntimeToCore> = next_frame(runtime).await;
        assert_eq!(frame.id.as_deref(), Some(session_id), "{frame:?}");
        let RuntimeToCore::PreparationStatus(status) = frame.message else {
            panic!("expected preparation_status, got {frame:?}");
        };
        let terminal = !matches!(
            status.state,
            PreparationState::Preparing | PreparationState::Queued
        );
        states.push(status);
        if terminal {
            return states;
        }
    }
}

/// What a process run in a sandbox printed, and whether it succeeded.
#[derive(Debug)]
pub struct Ran {
    pub success: bool,
    pub stdout: String,
    #[allow(dead_code)] // shown in a failed assertion's Debug output
    pub stderr: String,
}

/// Runs `sh -c script` in `placement`'s sandbox, as an adapter starts its harness there: the
/// wrapper first, the sandbox's `env` in the environment, nothing on the command line.
pub async fn run_in(placement: &ProcessPlacement, script: &str) -> Ran {
    let sandbox = placement.sandbox.as_ref().expect("a managed placement");
    let (program, args) = sandbox.wrapper.split_first().expect("a wrapper");
    let output = tokio::time::timeout(
        WAIT,
        tokio::process::Command::new(program)
            .args(args)
            .arg("/bin/sh")
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .envs(sandbox.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the sandboxed process ended in time")
    .expect("the sandbox starts");
    Ran {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}
