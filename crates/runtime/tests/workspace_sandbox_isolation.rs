//! A managed workspace's sandbox shows the workspace at `/workspace`, the Session's state dir
//! and the system directories, and nothing else of the host: a real process inside it cannot
//! read the Runtime data dir's other paths (another Session's state, the Core database) or
//! another Environment's workspace, and its `env` reaches it through the environment.

use crate::support;

use support::scratch;
use support::workspace::*;
use switchboard_protocol::workspace::NetworkAccess;

#[tokio::test]
async fn a_sandboxed_process_sees_only_its_workspace() {
    let Some(bwrap) = bwrap("a_sandboxed_process_sees_only_its_workspace") else {
        return;
    };
    let data = scratch("ws-iso-");
    let workspaces = workspaces(data.path(), bwrap);

    // What else is on the Runtime's disk: another Environment's workspace, another Session's
    // state, the Core database beside them.
    let other = managed_dir(data.path(), "env_other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("theirs.txt"), "other workspace").unwrap();
    let other_state = data.path().join("sessions/sess_other");
    std::fs::create_dir_all(&other_state).unwrap();
    std::fs::write(other_state.join("auth.json"), "other session").unwrap();
    std::fs::write(data.path().join("switchboard.db"), "core database").unwrap();

    let mut workspace = managed("env_mine", NetworkAccess::Enabled);
    workspace
        .env
        .insert("PROJECT_TOKEN".into(), "s3cret-value".into());
    let state_dir = data.path().join("sessions/sess_mine");
    let placed = workspaces
        .place(
            "sess_mine",
            &workspace,
            "http://127.0.0.1:9/v1",
            &state_dir,
            &[],
        )
        .await
        .unwrap();
    let placement = placed.placement;
    assert_eq!(placement.work_dir, std::path::Path::new("/workspace"));
    let sandbox = placement.sandbox.as_ref().unwrap();
    // The secret travels in the environment, never on the command line.
    assert!(
        !sandbox
            .wrapper
            .iter()
            .any(|a| a.to_string_lossy().contains("s3cret"))
    );

    for path in [
        other.join("theirs.txt"),
        other_state.join("auth.json"),
        data.path().join("switchboard.db"),
        "/etc/shadow".into(),
        "/root".into(),
    ] {
        let ran = run_in(
            &placement,
            &format!("cat '{}' || ls '{}'", path.display(), path.display()),
        )
        .await;
        assert!(
            !ran.success,
            "{} is visible in the sandbox: {ran:?}",
            path.display()
        );
        assert!(ran.stdout.is_empty(), "{ran:?}");
    }

    // Of the data dir only the way to its own state dir exists (the mount point's parents).
    let ran = run_in(
        &placement,
        &format!("ls -A '{0}' '{0}/sessions'", data.path().display()),
    )
    .await;
    assert!(ran.success, "{ran:?}");
    let listed: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|l| !l.is_empty() && !l.ends_with(':'))
        .collect();
    assert_eq!(listed, ["sessions", "sess_mine"], "{ran:?}");

    // What it does see: its workspace (read-write, at /workspace, its cwd), its state dir, its env.
    let ran = run_in(
        &placement,
        &format!(
            "pwd && echo made > inside.txt && echo home > '{}/home.txt' && printf %s \"$PROJECT_TOKEN\"",
            state_dir.display()
        ),
    )
    .await;
    assert!(ran.success, "{ran:?}");
    assert_eq!(ran.stdout, "/workspace\ns3cret-value");
    let mine = managed_dir(data.path(), "env_mine");
    assert_eq!(
        std::fs::read_to_string(mine.join("inside.txt")).unwrap(),
        "made\n"
    );
    assert_eq!(
        std::fs::read_to_string(state_dir.join("home.txt")).unwrap(),
        "home\n"
    );
    // The other workspace is unchanged.
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
}
