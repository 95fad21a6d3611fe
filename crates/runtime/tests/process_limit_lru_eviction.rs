//! With `max_live_harnesses: 2`, three Sessions each run a Turn: never more than two harness
//! processes live, the least recently used idle Session's process is evicted to make room, and
//! that Session's next Turn resumes its native history.

use crate::support;

use support::limit::{ChildPeak, live_children, runtime_limited};
use support::mcp::{binary, configuration, model_requests, prepare, run};
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{PreparationState, TurnOutcome};
use switchboard_runtime::{LocalRuntime, Notice};
use tokio::sync::broadcast;

fn completed(frames: &[RuntimeToCore]) {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

/// The Sessions evicted since the last call (the evictions happen before a Turn starts, so
/// they were all sent by the time its `done` arrived).
fn evicted(notices: &mut broadcast::Receiver<Notice>) -> Vec<String> {
    let mut ids = Vec::new();
    while let Ok(notice) = notices.try_recv() {
        if let Notice::Evicted { session_id } = notice {
            ids.push(session_id);
        }
    }
    ids
}

async fn turn(runtime: &mut LocalRuntime, session: &str, run_id: &str, text: &str) {
    completed(&run(runtime, session, run_id, text).await);
}

async fn lru_eviction_bounds_the_processes(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let model = MockModel::start(
        MockConfig::loopback().with_scenario(Scenario::new(vec![Rule::from(Reply::text("ok"))])),
    )
    .await
    .unwrap();
    let state = support::scratch("limit-lru-");
    let mut runtime = runtime_limited(harness, binary, state.path(), 2);
    let peak = ChildPeak::start();
    let mut notices = runtime.notices();
    let prepare_one = async |runtime: &mut LocalRuntime, session: &str| {
        let configuration = configuration(harness, &model, vec![]);
        let (prepared, error) = prepare(runtime, session, configuration).await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    };
    prepare_one(&mut runtime, "sess_1").await;
    prepare_one(&mut runtime, "sess_2").await;
    turn(&mut runtime, "sess_1", "run_1", "first-1").await;
    turn(&mut runtime, "sess_2", "run_2", "first-2").await;
    assert_eq!(live_children(), 2);
    assert_eq!(evicted(&mut notices), Vec::<String>::new());

    // Both slots are held by idle Sessions: the least recently used one makes room (preparing
    // launches the process).
    prepare_one(&mut runtime, "sess_3").await;
    assert_eq!(evicted(&mut notices), ["sess_1"]);
    turn(&mut runtime, "sess_3", "run_3", "first-3").await;
    assert_eq!(evicted(&mut notices), Vec::<String>::new());

    // sess_1 comes back on a new process (evicting sess_2, now the oldest) with its history.
    turn(&mut runtime, "sess_1", "run_4", "again-1").await;
    assert_eq!(evicted(&mut notices), ["sess_2"]);
    let resumed = model_requests(&model)
        .into_iter()
        .map(|body| body.to_string())
        .find(|body| body.contains("again-1"))
        .expect("the resumed Turn reached the model");
    assert!(resumed.contains("first-1"), "{resumed}");
    assert!(!resumed.contains("first-2") && !resumed.contains("first-3"));

    assert!(
        peak.peak() <= 2,
        "{} harness processes were live at once",
        peak.peak()
    );
    assert_eq!(live_children(), 2);
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_lru_eviction_bounds_the_processes() {
    lru_eviction_bounds_the_processes(HarnessId::Codex, "codex_lru_eviction_bounds_the_processes")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_lru_eviction_bounds_the_processes() {
    lru_eviction_bounds_the_processes(
        HarnessId::ClaudeCode,
        "claude_lru_eviction_bounds_the_processes",
    )
    .await;
}
