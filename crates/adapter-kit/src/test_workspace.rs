//! Workspace placements for the adapters' integration tests (feature `test-support`).
//!
//! The Runtime builds a Session's [`ProcessPlacement`] from its configuration; an adapter test
//! builds one itself: a self-hosted-style placement (the harness works directly in a temporary
//! directory), or a managed-style one whose processes run inside a plain bubblewrap sandbox
//! made here. That sandbox sees the workspace read-write at [`SANDBOX_WORK_DIR`], the system
//! directories and the harness install read-only, and the Session's state directory (the
//! harness's own home) read-write at its host path; it shares the host network, so the harness
//! reaches the mock model on loopback.

// Test code compiled behind a feature rather than `cfg(test)`: a failed step fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use switchboard_mock_model::{Reply, Rule, Scenario, When};
use switchboard_protocol::messages::CommandStatus;
use switchboard_protocol::{AdapterEvent, ProcessPlacement, Sandbox, SessionExecutor};

use crate::test_support::{
    assert_completed, final_answer, repo_root, start_user_turn, until_terminal,
};

/// Where a sandboxed harness sees its workspace (and works).
pub const SANDBOX_WORK_DIR: &str = "/workspace";

/// bubblewrap, where the tests expect it.
pub const BWRAP: &str = "/usr/bin/bwrap";

/// A temporary workspace directory under `target/` (next to the build, like the state dirs).
pub fn workspace_dir(harness: &str) -> tempfile::TempDir {
    let parent = repo_root()
        .join("target")
        .join(format!("{harness}-test-workspaces"));
    std::fs::create_dir_all(&parent).unwrap();
    tempfile::Builder::new()
        .prefix("ws-")
        .tempdir_in(parent)
        .unwrap()
}

/// A self-hosted-style placement: the harness works in `workspace` itself.
pub fn self_hosted(workspace: &Path) -> ProcessPlacement {
    ProcessPlacement {
        work_dir: workspace.canonicalize().unwrap(),
        sandbox: None,
        mcp_env: vec![],
        loopback: None,
    }
}

/// A managed-style placement: the harness `binary` runs inside bubblewrap with `workspace`
/// at [`SANDBOX_WORK_DIR`] and `state_dir` at its own path. `binary` must be canonical (the
/// sandbox has the install, not the symlinks or `..` that lead to it).
pub fn sandboxed(workspace: &Path, state_dir: &Path, binary: &Path) -> ProcessPlacement {
    let install = install_root(binary);
    let state = state_dir.canonicalize().unwrap();
    let mut wrapper: Vec<OsString> = [BWRAP, "--die-with-parent", "--unshare-pid"]
        .iter()
        .map(OsString::from)
        .collect();
    let mut add = |args: &[&dyn AsRef<std::ffi::OsStr>]| {
        wrapper.extend(args.iter().map(|a| a.as_ref().to_owned()));
    };
    for dir in ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64"] {
        add(&[&"--ro-bind-try", &dir, &dir]);
    }
    add(&[&"--proc", &"/proc", &"--dev", &"/dev", &"--tmpfs", &"/tmp"]);
    add(&[&"--ro-bind", &install, &install]);
    add(&[&"--bind", &state, &state]);
    add(&[
        &"--bind",
        &workspace.canonicalize().unwrap(),
        &SANDBOX_WORK_DIR,
    ]);
    add(&[&"--chdir", &SANDBOX_WORK_DIR, &"--"]);
    ProcessPlacement {
        work_dir: SANDBOX_WORK_DIR.into(),
        sandbox: Some(Sandbox {
            wrapper,
            env: vec![],
        }),
        mcp_env: vec![],
        loopback: None,
    }
}

/// The harness install a binary belongs to: its `.harnesses/<name>` folder, else its parent.
fn install_root(binary: &Path) -> PathBuf {
    let harnesses = repo_root().join(".harnesses").canonicalize().ok();
    harnesses
        .and_then(|root| {
            let rest = binary.strip_prefix(&root).ok()?;
            Some(root.join(rest.components().next()?))
        })
        .unwrap_or_else(|| binary.parent().unwrap().to_owned())
}

/// Whether bubblewrap can run here; a test that needs it fails in CI without it and skips
/// loudly elsewhere.
pub fn bwrap_or_skip(test: &str) -> bool {
    let works = std::process::Command::new(BWRAP)
        .args(["--ro-bind", "/", "/", "--", "/bin/true"])
        .status()
        .is_ok_and(|s| s.success());
    if works {
        return true;
    }
    let message = format!("{BWRAP} does not run here");
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    false
}

/// What the first Turn's command writes into the workspace.
pub const WRITTEN: &str = "written-by-turn-1";

/// A model that makes the harness run one native shell command per Turn, then answers `DONE`:
/// the first Turn's command writes [`WRITTEN`] to `made.txt` and the working directory to
/// `where.txt`, the second one prints `made.txt` back. The rules go by order (`times: 1`), not
/// by the user's text: Claude Code sends its environment as a trailing system message, after
/// the user's.
pub fn shell_scenario() -> Scenario {
    let once = |command: String| {
        let mut rule = Rule::new(
            When {
                tool_output_present: Some(false),
                ..When::default()
            },
            Reply::shell(command),
        );
        rule.times = Some(1);
        rule
    };
    Scenario::new(vec![
        once(format!("echo {WRITTEN} > made.txt && pwd > where.txt")),
        once("cat made.txt".into()),
        Rule::new(
            When {
                tool_output_present: Some(true),
                ..When::default()
            },
            Reply::text("DONE"),
        ),
    ])
}

/// One `command_execution` observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSeen {
    pub item_id: String,
    pub command: String,
    pub status: CommandStatus,
    pub exit_code: Option<i64>,
    pub output: Option<String>,
    pub cwd: Option<String>,
}

/// The Turn's `command_execution` observations, in order.
pub fn command_executions(events: &[AdapterEvent]) -> Vec<CommandSeen> {
    events
        .iter()
        .filter_map(|e| match e {
            AdapterEvent::CommandExecution {
                item_id,
                command,
                status,
                exit_code,
                output,
                cwd,
                ..
            } => Some(CommandSeen {
                item_id: item_id.clone(),
                command: command.clone(),
                status: *status,
                exit_code: *exit_code,
                output: output.clone(),
                cwd: cwd.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Runs Turn `n` with `text`, expects it to complete with `DONE` after exactly one native
/// command whose line contains `command_part`, opened (`in_progress`) before it finished
/// (`completed`, exit 0) under the same item id. Returns the finished command.
pub async fn command_turn(
    executor: &dyn SessionExecutor,
    n: u32,
    text: &str,
    command_part: &str,
) -> CommandSeen {
    let mut turn = start_user_turn(executor, n, text).await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    assert_eq!(final_answer(&events).as_deref(), Some("DONE"), "{events:?}");
    let commands = command_executions(&events);
    let [opened, done] = commands.as_slice() else {
        panic!("one command opened and finished: {commands:?} in {events:?}");
    };
    assert_eq!(opened.status, CommandStatus::InProgress, "{commands:?}");
    assert_eq!(opened.item_id, done.item_id);
    assert!(done.command.contains(command_part), "{commands:?}");
    assert_eq!(done.status, CommandStatus::Completed, "{commands:?}");
    assert_eq!(done.exit_code, Some(0), "{commands:?}");
    done.clone()
}

/// The workspace contract on a prepared executor whose model is [`shell_scenario`]: Turn 1's
/// command writes `made.txt` into `host_workspace` while working in `work_dir`; after eviction
/// the resumed Session (a new process, the same native session) reads that file back. Returns
/// Turn 1's finished command.
pub async fn write_evict_read(
    executor: &dyn SessionExecutor,
    host_workspace: &Path,
    work_dir: &str,
) -> CommandSeen {
    let native = executor.native_session_id().expect("a native session id");
    let wrote = command_turn(executor, 1, "WRITE the file", "made.txt").await;
    let read = |name: &str| std::fs::read_to_string(host_workspace.join(name)).unwrap();
    assert_eq!(read("made.txt"), format!("{WRITTEN}\n"));
    assert_eq!(read("where.txt").trim_end(), work_dir);

    executor.evict().await.unwrap();
    assert!(
        !executor.is_resident(),
        "an evicted Session holds no process"
    );
    let done = command_turn(executor, 2, "READ the file", "cat made.txt").await;
    assert!(
        done.output.as_deref().is_some_and(|o| o.contains(WRITTEN)),
        "the resumed Session sees the earlier Turn's file: {done:?}"
    );
    assert_eq!(executor.native_session_id(), Some(native));
    wrote
}

/// A model whose one command prints `partial` and exits 3, then answers `DONE`.
pub fn failing_shell_scenario() -> Scenario {
    let mut run = Rule::new(
        When {
            tool_output_present: Some(false),
            ..When::default()
        },
        Reply::shell("echo partial; exit 3"),
    );
    run.times = Some(1);
    Scenario::new(vec![run, Reply::text("DONE").into()])
}

/// On [`failing_shell_scenario`]: the command is reported `failed` with exit code 3 and its
/// output, and the Turn still completes (a failing command is the model's to handle).
pub async fn failing_command_turn(executor: &dyn SessionExecutor) {
    let mut turn = start_user_turn(executor, 1, "run it").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    let commands = command_executions(&events);
    let done = commands.last().expect("a command");
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert_eq!(done.status, CommandStatus::Failed, "{commands:?}");
    assert_eq!(done.exit_code, Some(3), "{commands:?}");
    assert!(
        done.output
            .as_deref()
            .is_some_and(|o| o.contains("partial")),
        "{commands:?}"
    );
}
