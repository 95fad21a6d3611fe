//! A release that holds no process slot starts no process. When the shared process its evicted
//! Session would have joined has died since the Runtime asked, the thread is kept beside the
//! home, and the home's next process deletes it before it serves anything.

use std::path::{Path, PathBuf};

use crate::support;

use support::*;
use switchboard_codex::released::RELEASED_FILE;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_without_a_slot_leaves_the_thread_to_the_next_process() {
    let Some(pair) = SharingPair::after_a_turn_each(
        "a_release_without_a_slot_leaves_the_thread_to_the_next_process",
        r#"{"city":"Oslo"}"#,
    )
    .await
    else {
        return;
    };
    let thread = pair.alpha.native_session_id().unwrap();
    pair.alpha.evict().await.unwrap();
    let pids = pair.host.process_ids();
    assert_eq!(pids.len(), 1, "beta still holds the process");
    assert!(
        !pair.alpha.release_starts_process(),
        "it would join beta's live process"
    );

    // The process dies between the Runtime's question and the release.
    signal(pids[0], "KILL");
    until_gone(pids[0]).await;
    pair.alpha.release(false).await.unwrap();
    assert_eq!(
        rollouts(pair.shared_root(), &thread).len(),
        1,
        "no process deleted the rollout"
    );
    assert_eq!(kept(pair.shared_root()), vec![thread.clone()]);
    assert!(pair.host.process_ids().is_empty());

    // Beta's next Turn starts the home's next process, which deletes the kept thread first.
    weather_turn(pair.beta.as_ref(), 2, "beta turn two").await;
    assert_eq!(rollouts(pair.shared_root(), &thread), Vec::<PathBuf>::new());
    assert_eq!(kept(pair.shared_root()), Vec::<String>::new());
}

/// The threads kept for deletion beside the homes under `root`.
fn kept(root: &Path) -> Vec<String> {
    std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .filter_map(|home| std::fs::read_to_string(home.path().join(RELEASED_FILE)).ok())
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

/// The rollouts under `dir` of thread `thread` (a rollout is named by its thread's id).
fn rollouts(dir: &Path, thread: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(rollouts(&path, thread));
        } else if let Some(name) = entry.file_name().to_str()
            && name.starts_with("rollout-")
            && name.contains(thread)
        {
            found.push(path);
        }
    }
    found
}
