//! With `max_concurrent_launches: 1`, two preparations sent together start their harness
//! processes one after the other: the second reports `queued` while the first launches, then
//! `preparing` again, and both become ready (none fails for the wait). And a cold resume (an
//! evicted Session's next Turn relaunching codex for `thread/resume`) takes the same permit:
//! three evicted Sessions resumed at once launch one at a time, each with its history.

use crate::support;

use std::collections::HashMap;

use support::limit::{
    LaunchPeak, holds_rollout, live_child_dirs, live_children, runtime_bounded, runtime_launching,
    start_run,
};
use support::mcp::{binary, configuration, model, model_requests, prepare, run};
use support::{next_frame, send};
use switchboard_mock_model::{Reply, Rule, Scenario};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{ExecutionPrepare, PreparationState, TurnOutcome};
use switchboard_runtime::Notice;

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

/// The outcome of a Turn's frames, which end with its `done`.
fn outcome(frames: &[RuntimeToCore]) -> Option<TurnOutcome> {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => Some(done.outcome),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cold_resumes_beyond_the_launch_limit_launch_one_at_a_time() {
    let harness = HarnessId::Codex;
    let test = "cold_resumes_beyond_the_launch_limit_launch_one_at_a_time";
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let model = model(Scenario::new(vec![Rule::from(Reply::text("ok"))])).await;
    let state = support::scratch("launch-limit-resume-");
    // Three slots, one launch at a time: six Sessions each run a Turn, so the last three's
    // preparations evict the first three (least recently used).
    let mut runtime = runtime_bounded(harness, binary, state.path(), 3, 1);
    let mut notices = runtime.notices();
    let sessions: Vec<String> = (1..=6).map(|i| format!("sess_{i}")).collect();
    for (i, session) in sessions.iter().enumerate() {
        let (prepared, error) = prepare(
            &mut runtime,
            session,
            configuration(harness, &model, vec![]),
        )
        .await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
        let frames = run(
            &mut runtime,
            session,
            &format!("run_first_{i}"),
            &format!("first-{i}"),
        )
        .await;
        assert_eq!(outcome(&frames), Some(TurnOutcome::Completed), "{frames:?}");
    }
    let mut evicted = Vec::new();
    while let Ok(notice) = notices.try_recv() {
        if let Notice::Evicted { session_id } = notice {
            evicted.push(session_id);
        }
    }
    assert_eq!(
        evicted,
        sessions[..3],
        "the three least recently used were evicted"
    );
    assert_eq!(live_children(), 3);

    // The three evicted Sessions' next Turns, sent together: each relaunches codex.
    let before: std::collections::HashSet<_> = live_child_dirs().into_iter().collect();
    // What the watch relies on: a launched codex holds its rollout open.
    assert!(before.iter().all(|d| holds_rollout(d)), "{before:?}");
    let peak = LaunchPeak::start(before.clone());
    for (i, session) in sessions[..3].iter().enumerate() {
        start_run(
            &runtime,
            session,
            &format!("run_again_{i}"),
            &format!("again-{i}"),
        )
        .await;
    }
    let mut outcomes = std::collections::HashMap::new();
    while outcomes.len() < 3 {
        let frame = next_frame(&mut runtime).await;
        if let RuntimeToCore::Done(done) = frame.message {
            outcomes.insert(frame.id.unwrap_or_default(), done.outcome);
        }
    }
    let launched = peak.seen().difference(&before).count();
    let most_launching = peak.peak();
    drop(peak);
    assert!(
        outcomes.values().all(|o| *o == TurnOutcome::Completed),
        "{outcomes:?}"
    );
    assert_eq!(
        launched, 3,
        "each resume launched its own codex ({outcomes:?})"
    );
    assert_eq!(
        most_launching, 1,
        "codex processes launching at once (live, no rollout open yet)"
    );
    assert!(live_children() <= 3);
    // Each resumed Turn carried its own first message, and no other Session's.
    let requests: Vec<String> = model_requests(&model)
        .iter()
        .map(|b| b.to_string())
        .collect();
    for i in 0..3 {
        let resumed = requests
            .iter()
            .find(|body| body.contains(&format!("again-{i}")))
            .expect("the resumed Turn reached the model");
        for j in 0..6 {
            assert_eq!(
                resumed.contains(&format!("first-{j}")),
                i == j,
                "Session {i}'s resumed request and first-{j}: {resumed}"
            );
        }
    }
    runtime.shutdown().await;
}
