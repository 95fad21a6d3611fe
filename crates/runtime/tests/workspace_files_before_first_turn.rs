//! A managed workspace's `files` are in the workspace when the Session is ready, before its
//! first Turn, and `setup_commands` have run after them; both happen once per Environment: a
//! second Session of the same Environment finds the workspace as the first one left it.

use crate::support;

use std::time::Duration;

use support::workspace::*;
use support::{codex_binary, configuration, local_runtime, prepare, scratch};
use switchboard_protocol::workspace::{
    NetworkAccess, WorkspaceEntry, WorkspaceList, WorkspacePlacement,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_and_setup_are_in_place_before_the_first_turn_once_per_environment() {
    let test = "files_and_setup_are_in_place_before_the_first_turn_once_per_environment";
    let (Some(_), Some(binary)) = (bwrap(test), codex_binary(test)) else {
        return;
    };
    let data = scratch("ws-files-");
    let mut runtime = local_runtime(binary, data.path(), Duration::from_secs(300));
    let mut workspace = managed("env_files", NetworkAccess::Enabled);
    workspace.files = vec![
        file("/workspace/README.md", "# project\n"),
        file("/workspace/src/lib.rs", "pub fn f() {}\n"),
    ];
    workspace.setup_commands = vec![setup(
        "wc -l < src/lib.rs > lines.txt; echo ran >> setup.log",
    )];
    let mut config = configuration("http://127.0.0.1:9", vec![]);
    config.workspace = Some(workspace);

    prepare(&mut runtime, "sess_first", config.clone()).await;
    let list = WorkspaceList {
        environment_id: "env_files".into(),
        placement: WorkspacePlacement::Managed,
        path: None,
    };
    let listed = request(&mut runtime, "wsreq_1", list.clone()).await;
    assert_eq!(listed.error_code, None, "{listed:?}");
    let entry = |path: &str, size_bytes| WorkspaceEntry {
        path: path.into(),
        size_bytes,
    };
    assert_eq!(
        listed.files,
        vec![
            entry("/workspace/README.md", 10),
            entry("/workspace/lines.txt", 2),
            entry("/workspace/setup.log", 4),
            entry("/workspace/src/lib.rs", 14),
        ]
    );

    // What the first Session's Turns changed stays: the second Session neither rewrites the
    // files nor reruns the setup.
    let dir = managed_dir(data.path(), "env_files");
    std::fs::write(dir.join("README.md"), "# edited by a Turn\n").unwrap();
    prepare(&mut runtime, "sess_second", config).await;
    assert_eq!(
        std::fs::read_to_string(dir.join("README.md")).unwrap(),
        "# edited by a Turn\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("setup.log")).unwrap(),
        "ran\n"
    );
    runtime.shutdown().await;
}
