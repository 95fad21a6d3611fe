//! LocalRuntime end to end on the real codex: `execution_prepare` → `preparing`, `ready`;
//! `execution_start` → the Turn's frames in order, ending with `done{completed}`.

use crate::support;

use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_protocol::messages::{
    ExecutionRelease, ExecutionStart, MessagePhase, MessageStatus, PreparationState, TurnOutcome,
};
use switchboard_protocol::{InputPart, RuntimeToCore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_runs_through_frames() {
    let Some(binary) = codex_binary("text_turn_runs_through_frames") else {
        return;
    };
    let model = FakeResponses::start(Script::Text("Hello from the model".into())).await;
    let state = scratch("local-text-");
    let mut runtime = local_runtime(binary, state.path(), Duration::from_secs(300));

    // The heartbeat goes out at once, before anything is asked.
    let first = tokio::time::timeout(WAIT, runtime.from_runtime.recv())
        .await
        .unwrap()
        .unwrap();
    let RuntimeToCore::Heartbeat(heartbeat) = first.message else {
        panic!("the first frame is not a heartbeat: {first:?}");
    };
    assert!(heartbeat.supported_harnesses[0].available);
    assert_eq!(first.id, None);

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
            text: "Say hello".into(),
        }],
    };
    send(&runtime, "run_1", start).await;
    let frames = until_done(&mut runtime, "run_1").await;

    // An opened message, its deltas, then the closed message with the whole text.
    let opened = frames
        .iter()
        .position(|f| matches!(f, RuntimeToCore::OutputMessage(m) if m.status == MessageStatus::InProgress))
        .expect("an output_message in_progress");
    let closed = frames
        .iter()
        .position(|f| matches!(f, RuntimeToCore::OutputMessage(m) if m.status == MessageStatus::Completed))
        .expect("an output_message completed");
    assert!(opened < closed);
    let deltas: String = frames[opened..closed]
        .iter()
        .filter_map(|f| match f {
            RuntimeToCore::Delta(d) => Some(d.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "Hello from the model");
    let RuntimeToCore::OutputMessage(message) = &frames[closed] else {
        unreachable!()
    };
    assert_eq!(message.phase, Some(MessagePhase::FinalAnswer));
    assert_eq!(message.text, "Hello from the model");
    let RuntimeToCore::Done(done) = frames.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(done.outcome, TurnOutcome::Completed);
    assert!(done.usage.is_some_and(|u| u.total_tokens > 0));
    assert!(
        !frames.iter().any(|f| matches!(f, RuntimeToCore::Error(_))),
        "{frames:?}"
    );

    // Release answers `released`.
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
    runtime.shutdown().await;
}
