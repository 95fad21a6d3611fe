//! A self-hosted workspace is the configuration's `directory` on this machine: a directory that
//! does not exist fails the preparation with `sandbox_error`; once a Session of the Environment
//! is prepared, the `workspace_*` frames read and write under that directory, with absolute
//! paths of this machine, and refuse any other.

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use support::workspace::*;
use support::{codex_binary, configuration, local_runtime, prepare, scratch, send};
use switchboard_protocol::messages::{ExecutionPrepare, PreparationState};
use switchboard_protocol::workspace::{
    NetworkAccess, Workspace, WorkspaceList, WorkspacePlacement, WorkspaceWrite,
};

fn self_hosted(directory: &str) -> Workspace {
    Workspace {
        environment_id: "env_home".into(),
        placement: WorkspacePlacement::SelfHosted,
        directory: directory.to_owned(),
        capability_directories: vec![],
        network: NetworkAccess::Enabled,
        env: BTreeMap::new(),
        files: vec![],
        setup_commands: vec![],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_self_hosted_workspace_is_its_directory() {
    let Some(binary) = codex_binary("a_self_hosted_workspace_is_its_directory") else {
        return;
    };
    let data = scratch("ws-self-");
    let project = scratch("ws-project-");
    let mut runtime = local_runtime(binary, data.path(), Duration::from_secs(300));

    // A directory this machine does not have.
    let missing = project.path().join("not-here");
    let mut config = configuration("http://127.0.0.1:9", vec![]);
    config.workspace = Some(self_hosted(missing.to_str().unwrap()));
    let request_prepare = ExecutionPrepare {
        session_id: "sess_missing".into(),
        configuration: config,
    };
    send(&runtime, "sess_missing", request_prepare).await;
    let states = preparation(&mut runtime, "sess_missing").await;
    let failed = states.last().unwrap();
    assert_eq!(failed.state, PreparationState::Failed);
    assert_eq!(failed.error_code.as_deref(), Some("sandbox_error"));
    assert_eq!(
        failed.error,
        Some(format!(
            "The workspace directory {} does not exist on this machine.",
            missing.display()
        ))
    );

    // As the user names it: an absolute path without `..`.
    let directory = project
        .path()
        .canonicalize()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let mut config = configuration("http://127.0.0.1:9", vec![]);
    config.workspace = Some(self_hosted(&directory));
    prepare(&mut runtime, "sess_home", config).await;

    let write = |path: String| WorkspaceWrite {
        environment_id: "env_home".into(),
        placement: WorkspacePlacement::SelfHosted,
        file: file(&path, "from the API"),
    };
    let written = request(
        &mut runtime,
        "wsreq_w",
        write(format!("{directory}/notes/a.md")),
    )
    .await;
    assert_eq!(written.error_code, None, "{written:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("notes/a.md")).unwrap(),
        "from the API"
    );
    let outside = request(&mut runtime, "wsreq_out", write("/workspace/a.md".into())).await;
    assert_eq!(
        outside.error_code.as_deref(),
        Some("invalid_path"),
        "{outside:?}"
    );

    let listed = request(
        &mut runtime,
        "wsreq_l",
        WorkspaceList {
            environment_id: "env_home".into(),
            placement: WorkspacePlacement::SelfHosted,
            path: Some(format!("{directory}/notes")),
        },
    )
    .await;
    assert_eq!(listed.error_code, None, "{listed:?}");
    assert_eq!(listed.files.len(), 1);
    assert_eq!(listed.files[0].path, format!("{directory}/notes/a.md"));
    runtime.shutdown().await;
}
