//! `execution_release` (Core deleted the Session) removes the Session's state directory, with
//! codex's home and rollouts in it, also when the executor was already evicted and no process
//! runs; `released` answers only after.

use crate::support;

use std::path::Path;
use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_protocol::messages::{ExecutionRelease, ExecutionStart, PreparationState};
use switchboard_protocol::{InputPart, RuntimeToCore};
use switchboard_runtime::Notice;

const MARKER: &str = "release-forgets-marker-8812";

/// Whether any file under `dir` holds `needle`.
fn holds(dir: &Path, needle: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        if path.is_dir() {
            holds(&path, needle)
        } else {
            std::fs::read(&path)
                .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releasing_an_evicted_session_removes_its_state_dir() {
    let Some(binary) = codex_binary("releasing_an_evicted_session_removes_its_state_dir") else {
        return;
    };
    let model = FakeResponses::start(Script::Text("noted".into())).await;
    let state = scratch("local-release-");
    let mut runtime = local_runtime(binary, state.path(), Duration::from_millis(500));
    prepare(
        &mut runtime,
        "sess_1",
        configuration(&model.base_url(), vec![]),
    )
    .await;
    let start = ExecutionStart {
        session_id: "sess_1".into(),
        run_id: "run_1".into(),
        turn_id: "turn_1".into(),
        traceparent: None,
        input: vec![InputPart::InputText {
            text: format!("remember {MARKER}"),
        }],
    };
    send(&runtime, "run_1", start).await;
    until_done(&mut runtime, "run_1").await;
    let mut notices = runtime.notices();
    let notice = tokio::time::timeout(WAIT, notices.recv())
        .await
        .expect("the idle executor is evicted")
        .unwrap();
    assert_eq!(
        notice,
        Notice::Evicted {
            session_id: "sess_1".into()
        }
    );
    let dir = state.path().join("sessions").join("sess_1");
    assert!(holds(&dir, MARKER), "the rollout keeps the message");

    send(
        &runtime,
        "sess_1",
        ExecutionRelease {
            session_id: "sess_1".into(),
        },
    )
    .await;
    let frame = next_frame(&mut runtime).await;
    let RuntimeToCore::PreparationStatus(status) = frame.message else {
        panic!("{frame:?}")
    };
    assert_eq!(status.state, PreparationState::Released);
    assert!(!dir.exists(), "the state dir is still there");
    assert!(!holds(state.path(), MARKER));
    runtime.shutdown().await;
}
