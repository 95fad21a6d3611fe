//! Issue 13, item 6: `/readyz` reflects whether the store can be written. The data directory is
//! a small tmpfs (needs root) filled to the last byte: `/readyz` answers 503 naming the reason, a
//! write fails whole (nothing half-stored), and both recover once space is freed. (A read-only
//! remount is refused while the server holds its files open for writing, so the full disk is
//! the case a test can produce.)

use crate::support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use support::{Core, Mock, poll, scratch, start_limited_on};

/// A tmpfs mounted at a directory, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_owned()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

async fn readyz(core: &Core) -> (u16, Value) {
    let response = reqwest::get(format!("{}/readyz", core.root)).await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Polls `/readyz` until its store member says `writable` (absent) or not.
async fn wait_store(core: &Core, writable: bool) -> (u16, Value) {
    poll(&format!("/readyz to say writable={writable}"), || async {
        let (status, body) = readyz(core).await;
        (body.get("store").is_none() == writable).then_some((status, body))
    })
    .await
}

fn agent(name: &str) -> Option<Value> {
    Some(json!({"name": name, "model": "gpt-test", "instructions": "x"}))
}

async fn agent_names(core: &Core) -> Vec<String> {
    let page = core.get("/agents?limit=100").await;
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn readyz_and_writes_follow_store_writability() {
    if !support::codex_installed("readyz_and_writes_follow_store_writability") {
        return;
    }
    let dir = scratch("writable-");
    let data = dir.path().join("data");
    let Some(_mount) = Tmpfs::mount(&data, "8m") else {
        let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(!in_ci, "mounting a tmpfs failed (the test needs root)");
        eprintln!("SKIPPED readyz_and_writes_follow_store_writability: cannot mount a tmpfs");
        return;
    };
    let mock = Mock::start(dir.path(), None).await;
    let core = start_limited_on(&data, &mock, &[]).await;
    assert_eq!(core.api("POST", "/agents", agent("before")).await.0, 201);

    // Full: 503 with a reason; a write fails and stores nothing; space coming back brings
    // both back.
    let filler = data.join("filler");
    {
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![7u8; 64 * 1024];
        while f.write_all(&chunk).is_ok() {}
        while f.write_all(&chunk[..1]).is_ok() {}
        let _ = f.sync_all();
    }
    let (status, body) = wait_store(&core, false).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready");
    assert_eq!(body["store"]["writable"], false);
    let reason = body["store"]["reason"].as_str().unwrap();
    assert!(reason.contains("cannot be written"), "{reason}");
    let (status, error) = core.api("POST", "/agents", agent("full")).await;
    assert_eq!(status, 500, "{error}");
    assert_eq!(error["error"]["type"], "server_error");
    std::fs::remove_file(&filler).unwrap();
    assert_eq!(wait_store(&core, true).await.0, 200);
    assert_eq!(core.api("POST", "/agents", agent("after")).await.0, 201);
    assert_eq!(agent_names(&core).await, ["after", "before"]);
}
