//! A Runtime with a warm pool, and waits on the pool's notices.

use std::path::{Path, PathBuf};

use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario};
use switchboard_protocol::configuration::HarnessId;
use switchboard_runtime::{LocalRuntime, Notice, RuntimeOptions};
use tokio::sync::broadcast;

use super::limit::{bounded_options, runtime_with};

/// A Runtime running codex from `binary` with at most `max_live` harness processes, `warm` of
/// which may be warm.
pub fn runtime_warm(binary: PathBuf, state: &Path, max_live: usize, warm: usize) -> LocalRuntime {
    let options = RuntimeOptions {
        warm_harnesses: warm,
        ..bounded_options(state, max_live)
    };
    runtime_with(HarnessId::Codex, binary, state, options)
}

/// A mock model that answers every request with `text`.
pub async fn text_model(text: &str) -> MockModel {
    let scenario = Scenario::new(vec![Rule::from(Reply::text(text))]);
    MockModel::start(MockConfig::loopback().with_scenario(scenario))
        .await
        .unwrap()
}

/// The next notice `pick` accepts (others are skipped), bounded.
pub async fn until_notice<T>(
    notices: &mut broadcast::Receiver<Notice>,
    mut pick: impl FnMut(&Notice) -> Option<T>,
) -> T {
    tokio::time::timeout(super::WAIT, async {
        loop {
            let notice = notices.recv().await.expect("the Runtime runs");
            if let Some(found) = pick(&notice) {
                return found;
            }
        }
    })
    .await
    .expect("timed out waiting for a Runtime notice")
}

/// Waits until a warm process is ready; its pid.
pub async fn until_warmed(notices: &mut broadcast::Receiver<Notice>) -> u32 {
    until_notice(notices, |n| match n {
        Notice::Warmed { pid } => Some(*pid),
        _ => None,
    })
    .await
}

/// Waits until `session`'s preparation took a warm process; its pid.
pub async fn until_bound(notices: &mut broadcast::Receiver<Notice>, session: &str) -> u32 {
    until_notice(notices, |n| match n {
        Notice::BoundWarm { session_id, pid } if session_id == session => Some(*pid),
        _ => None,
    })
    .await
}

/// The notices received so far, without waiting.
pub fn received(notices: &mut broadcast::Receiver<Notice>) -> Vec<Notice> {
    let mut out = Vec::new();
    while let Ok(notice) = notices.try_recv() {
        out.push(notice);
    }
    out
}

/// The pids of this process's live harness children.
pub fn child_pids() -> Vec<u32> {
    let mut pids: Vec<u32> = super::limit::live_child_dirs()
        .iter()
        .filter_map(|d| d.file_name()?.to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    pids
}

/// Whether process `pid` holds a rollout file open under `home` (a codex home, canonical).
pub fn holds_rollout_under(pid: u32, home: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            target.starts_with(home)
                && target
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
        })
    })
}
