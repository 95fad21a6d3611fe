//! With `max_concurrent_launches: 1`, two preparations sent together start their harness
//! processes one after the other: the second reports `queued` while the first launches, then
//! `preparing` again, and both become ready (none fails for the wait).

// Test code may panic (clippy.toml's test allowance misses integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::HashMap;

use support::limit::runtime_launching;
use support::mcp::{binary, configuration, model};
use support::{next_frame, send};
use switchboard_mock_model::Scenario;
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{ExecutionPrepare, PreparationState};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preparations_beyond_the_launch_limit_wait_queued() {
    let harness = HarnessId::Codex;
    let Some(binary) = binary(harness, "preparations_beyond_the_launch_limit_wait_queued") else {
        return;
    };
    let model = model(Scenario::new(vec![])).await;
    let state = support::scratch("launch-limit-");
    let mut runtime = runtime_launching(harness, binary, state.path(), 1);
    // Sent together: the second arrives while the first harness is still starting (a codex
    // launch takes hundreds of milliseconds; the frame loop takes microseconds).
    for session in ["sess_1", "sess_2"] {
        let prepare = ExecutionPrepare {
            session_id: session.into(),
            configuration: configuration(harness, &model, vec![]),
        };
        send(&runtime, session, prepare).await;
    }
    let mut states: HashMap<String, Vec<PreparationState>> = HashMap::new();
    let settled = |states: &HashMap<String, Vec<PreparationState>>| {
        ["sess_1", "sess_2"].iter().all(|s| {
            states
                .get(*s)
                .and_then(|v| v.last())
                .is_some_and(|last| *last == PreparationState::Ready)
        })
    };
    while !settled(&states) {
        let frame = next_frame(&mut runtime).await;
        let RuntimeToCore::PreparationStatus(status) = frame.message else {
            continue;
        };
        assert!(
            matches!(
                status.state,
                PreparationState::Preparing | PreparationState::Queued | PreparationState::Ready
            ),
            "{status:?}"
        );
        states
            .entry(status.session_id.clone())
            .or_default()
            .push(status.state);
    }
    use PreparationState::{Preparing, Queued, Ready};
    let mut sequences: Vec<_> = states.values().cloned().collect();
    sequences.sort_by_key(Vec::len);
    assert_eq!(
        sequences,
        [
            vec![Preparing, Ready],
            vec![Preparing, Queued, Preparing, Ready]
        ],
        "{states:?}"
    );
}
