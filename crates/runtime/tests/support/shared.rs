//! Shared Codex processes: a Runtime that shares them, releasing a Session, and where a
//! Session's words are left on disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{ExecutionRelease, PreparationState, TurnOutcome};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};

/// A Runtime on `state` whose Codex Sessions share processes (homes in `<state>/shared`), with
/// at most `max_live` live harness processes (`None`: the default bound).
pub fn runtime_sharing(binary: PathBuf, state: &Path, max_live: Option<usize>) -> LocalRuntime {
    let locator = Locator::new(state).with_explicit(HarnessId::Codex, binary);
    let defaults = RuntimeOptions::for_data_dir(state);
    let options = RuntimeOptions {
        idle_timeout: Duration::from_secs(300),
        heartbeat_interval: Duration::from_secs(30),
        max_live_harnesses: max_live.unwrap_or(defaults.max_live_harnesses),
        ..defaults
    };
    let registry = Registry::standard(locator).with_shared_codex_processes(state.join("shared"));
    LocalRuntime::start(Arc::new(registry), options)
}

/// The Run's frames ended with its Turn completed.
pub fn completed(frames: &[RuntimeToCore]) {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

/// Core deletes `session_id`: waits until the Runtime says it is released.
pub async fn release(runtime: &mut LocalRuntime, session_id: &str) {
    let release = ExecutionRelease {
        session_id: session_id.into(),
    };
    super::send(
        runtime,
        &format!("rel_{session_id}"),
        CoreToRuntime::ExecutionRelease(release),
    )
    .await;
    tokio::time::timeout(super::WAIT, async {
        loop {
            let frame = super::next_frame(runtime).await;
            if let RuntimeToCore::PreparationStatus(status) = frame.message
                && status.state == PreparationState::Released
            {
                return;
            }
        }
    })
    .await
    .expect("the Session is released");
}

/// The files under `state` that hold `needle`, codex's SQLite files aside (they keep deleted
/// rows' bytes in freed pages: a known limit of sharing, in docs/benchmarks.md).
pub fn rollouts(state: &Path, needle: &str) -> Vec<String> {
    super::mcp::leak_scan(needle, &[state])
        .into_iter()
        .filter(|hit| !hit.contains(".sqlite"))
        .collect()
}

/// How many shared homes there are under `state` (`runtime_sharing`'s `<state>/shared`).
pub fn homes(state: &Path) -> usize {
    std::fs::read_dir(state.join("shared"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}
