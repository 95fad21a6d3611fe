//! `workspace_remove` deletes the managed Environment's whole directory (workspace and what the
//! Runtime keeps beside it), answering with the same frame id; a symlink planted in the
//! workspace is removed, not followed. Listing afterwards finds no files.

use crate::support;

use support::scratch;
use support::workspace::*;
use switchboard_protocol::workspace::{
    WorkspaceList, WorkspacePlacement, WorkspaceRemove, WorkspaceWrite,
};

#[tokio::test]
async fn remove_deletes_the_environment_directory() {
    let data = scratch("ws-remove-");
    let mut runtime = plain_runtime(data.path());
    let write = WorkspaceWrite {
        environment_id: "env_gone".into(),
        placement: WorkspacePlacement::Managed,
        file: file("/workspace/deep/er/file.txt", "content"),
    };
    let written = request(&mut runtime, "wsreq_w", write).await;
    assert_eq!(written.error_code, None, "{written:?}");
    assert_eq!(written.files[0].path, "/workspace/deep/er/file.txt");
    assert_eq!(written.files[0].size_bytes, 7);

    // Something outside that a planted link points at survives the removal.
    let keep = data.path().join("keep");
    std::fs::create_dir_all(&keep).unwrap();
    std::fs::write(keep.join("kept.txt"), "kept").unwrap();
    let root = managed_dir(data.path(), "env_gone");
    std::os::unix::fs::symlink(&keep, root.join("link")).unwrap();

    let removed = request(
        &mut runtime,
        "wsreq_rm",
        WorkspaceRemove {
            environment_id: "env_gone".into(),
        },
    )
    .await;
    assert_eq!(removed.environment_id, "env_gone");
    assert_eq!(removed.error_code, None, "{removed:?}");
    assert!(removed.files.is_empty());
    assert!(!data.path().join("environments/env_gone").exists());
    assert_eq!(
        std::fs::read_to_string(keep.join("kept.txt")).unwrap(),
        "kept"
    );

    let listed = request(
        &mut runtime,
        "wsreq_l",
        WorkspaceList {
            environment_id: "env_gone".into(),
            placement: WorkspacePlacement::Managed,
            path: None,
        },
    )
    .await;
    assert_eq!(listed.error_code, None);
    assert!(listed.files.is_empty());
    runtime.shutdown().await;
}
