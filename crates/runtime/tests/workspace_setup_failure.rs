//! A setup command that fails fails the preparation with `sandbox_error`, its message naming
//! the command, its status and its output; the commands before it ran, in order, inside the
//! sandbox (in the workspace, as the `cwd` given), and none after it.

use crate::support;

use support::workspace::*;
use support::{configuration, scratch, send};
use switchboard_protocol::messages::{ExecutionPrepare, PreparationState};
use switchboard_protocol::workspace::{NetworkAccess, SetupCommand};

#[tokio::test]
async fn a_failing_setup_command_fails_preparation_with_sandbox_error() {
    let Some(_) = bwrap("a_failing_setup_command_fails_preparation_with_sandbox_error") else {
        return;
    };
    let data = scratch("ws-setup-");
    let mut runtime = plain_runtime(data.path());
    let mut workspace = managed("env_setup", NetworkAccess::Disabled);
    workspace.files = vec![file("/workspace/sub/seed.txt", "seed")];
    workspace.setup_commands = vec![
        setup("pwd > first.txt"),
        SetupCommand {
            command: "pwd > second.txt && cat seed.txt >> second.txt".into(),
            cwd: Some("/workspace/sub".into()),
        },
        setup("echo 'no such package' >&2; exit 3"),
        setup("touch never.txt"),
    ];
    let mut config = configuration("http://127.0.0.1:9", vec![]);
    config.workspace = Some(workspace);
    let prepare = ExecutionPrepare {
        session_id: "sess_setup".into(),
        configuration: config,
    };
    send(&runtime, "sess_setup", prepare).await;

    let states = preparation(&mut runtime, "sess_setup").await;
    let [preparing, failed] = states.as_slice() else {
        panic!("{states:?}");
    };
    assert_eq!(preparing.state, PreparationState::Preparing);
    assert_eq!(failed.state, PreparationState::Failed);
    assert_eq!(failed.error_code.as_deref(), Some("sandbox_error"));
    assert_eq!(
        failed.error.as_deref(),
        Some(
            "the setup command `echo 'no such package' >&2; exit 3` exited with status 3: no such package"
        )
    );
    let dir = managed_dir(data.path(), "env_setup");
    assert_eq!(
        std::fs::read_to_string(dir.join("first.txt")).unwrap(),
        "/workspace\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("sub/second.txt")).unwrap(),
        "/workspace/sub\nseed"
    );
    assert!(!dir.join("never.txt").exists());
    runtime.shutdown().await;
}
