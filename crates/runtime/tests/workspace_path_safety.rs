//! No path operation Switchboard performs leaves the workspace root: `..`, other roots and
//! relative paths are refused with `invalid_path`, and a symlink planted in the workspace (as
//! the model could plant one) to `/etc` or to the Runtime's data dir is neither written through
//! nor listed beyond.

use crate::support;

use std::os::unix::fs::symlink;

use support::scratch;
use support::workspace::*;
use switchboard_protocol::workspace::{
    WorkspaceEntry, WorkspaceList, WorkspacePlacement, WorkspaceWrite,
};

fn write(path: &str, text: &str) -> WorkspaceWrite {
    WorkspaceWrite {
        environment_id: "env_paths".into(),
        placement: WorkspacePlacement::Managed,
        file: file(path, text),
    }
}

fn list(path: Option<&str>) -> WorkspaceList {
    WorkspaceList {
        environment_id: "env_paths".into(),
        placement: WorkspacePlacement::Managed,
        path: path.map(str::to_owned),
    }
}

#[tokio::test]
async fn paths_never_leave_the_workspace_root() {
    let data = scratch("ws-paths-");
    let mut runtime = plain_runtime(data.path());

    // Paths that name something outside the workspace, before any symlink is involved.
    for (i, path) in [
        "/workspace/../etc/passwd",
        "/etc/passwd",
        "workspace/a.txt",
        "/workspace",
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("wsreq_bad{i}");
        let result = request(&mut runtime, &id, write(path, "x")).await;
        assert_eq!(
            result.error_code.as_deref(),
            Some("invalid_path"),
            "{path}: {result:?}"
        );
        assert!(result.files.is_empty());
    }
    assert!(!data.path().join("etc").exists());

    // A normal write lands in the workspace and is listed with its size.
    let ok = request(
        &mut runtime,
        "wsreq_ok",
        write("/workspace/src/main.txt", "hello"),
    )
    .await;
    assert_eq!(ok.error_code, None, "{ok:?}");
    let root = managed_dir(data.path(), "env_paths");
    assert_eq!(
        std::fs::read_to_string(root.join("src/main.txt")).unwrap(),
        "hello"
    );

    // Planted symlinks: a directory link to /etc, one to the data dir, a file link to a file of
    // the data dir.
    let secret = data.path().join("secret.txt");
    std::fs::write(&secret, "runtime secret").unwrap();
    symlink("/etc", root.join("etc_link")).unwrap();
    symlink(data.path(), root.join("data_link")).unwrap();
    symlink(&secret, root.join("secret_link.txt")).unwrap();

    for (i, path) in [
        "/workspace/etc_link/switchboard-test",
        "/workspace/data_link/planted.txt",
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("wsreq_link{i}");
        let result = request(&mut runtime, &id, write(path, "through")).await;
        assert_eq!(
            result.error_code.as_deref(),
            Some("invalid_path"),
            "{path}: {result:?}"
        );
    }
    assert!(!std::path::Path::new("/etc/switchboard-test").exists());
    assert!(!data.path().join("planted.txt").exists());

    // Writing over a file symlink replaces the link; the file it pointed to is untouched.
    let replaced = request(
        &mut runtime,
        "wsreq_rep",
        write("/workspace/secret_link.txt", "mine"),
    )
    .await;
    assert_eq!(replaced.error_code, None, "{replaced:?}");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "runtime secret");
    assert!(!root.join("secret_link.txt").is_symlink());

    // Listing never goes through a link: not at the path, not inside the tree.
    for (i, path) in [
        "/workspace/etc_link",
        "/workspace/data_link",
        "/workspace/data_link/secret.txt",
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("wsreq_list{i}");
        let result = request(&mut runtime, &id, list(Some(path))).await;
        assert_eq!(
            result.error_code.as_deref(),
            Some("invalid_path"),
            "{path}: {result:?}"
        );
        assert!(result.files.is_empty());
    }
    let outside = request(&mut runtime, "wsreq_list_out", list(Some("/etc"))).await;
    assert_eq!(outside.error_code.as_deref(), Some("invalid_path"));
    let all = request(&mut runtime, "wsreq_list_all", list(None)).await;
    assert_eq!(all.error_code, None, "{all:?}");
    assert_eq!(
        all.files,
        vec![
            WorkspaceEntry {
                path: "/workspace/secret_link.txt".into(),
                size_bytes: 4
            },
            WorkspaceEntry {
                path: "/workspace/src/main.txt".into(),
                size_bytes: 5
            },
        ]
    );
    runtime.shutdown().await;
}
