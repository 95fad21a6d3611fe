//! LocalRuntime end to end on the real codex: a `function_call` frame, a `function_result`
//! answered by `interaction_decision_ack{applied: true}`, then the model's final answer built
//! from that result and `done{completed}`.

use crate::support;

use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_protocol::messages::{
    ExecutionStart, FunctionResult, MessagePhase, MessageStatus, TurnOutcome,
};
use switchboard_protocol::{FunctionOutput, InputPart, RuntimeToCore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_call_turn_runs_through_frames() {
    let Some(binary) = codex_binary("function_call_turn_runs_through_frames") else {
        return;
    };
    let arguments = r#"{"city":"Paris"}"#;
    let model = FakeResponses::start(Script::Call {
        name: "get_weather".into(),
        arguments: arguments.into(),
    })
    .await;
    let state = scratch("local-function-");
    let mut runtime = local_runtime(binary, state.path(), Duration::from_secs(300));
    let config = configuration(&model.base_url(), vec![get_weather()]);
    prepare(&mut runtime, "sess_1", config).await;

    let start = ExecutionStart {
        session_id: "sess_1".into(),
        run_id: "run_1".into(),
        turn_id: "turn_1".into(),
        traceparent: None,
        input: vec![InputPart::InputText {
            text: "Weather in Paris?".into(),
        }],
    };
    send(&runtime, "run_1", start).await;

    let call = loop {
        let frame = next_frame(&mut runtime).await;
        assert_eq!(frame.id.as_deref(), Some("run_1"));
        match frame.message {
            RuntimeToCore::FunctionCall(call) => break call,
            RuntimeToCore::Done(done) => panic!("the Turn ended before the call: {done:?}"),
            _ => {}
        }
    };
    assert_eq!(call.name, "get_weather");
    assert_eq!(call.arguments, arguments);

    // An unknown Run is refused without touching the pending call.
    let stray = FunctionResult {
        delivery_id: "del_stray".into(),
        call_id: call.call_id.clone(),
        success: true,
        output: None,
        error: None,
    };
    send(&runtime, "run_other", stray).await;
    let frame = next_frame(&mut runtime).await;
    assert_eq!(frame.id.as_deref(), Some("run_other"));
    let RuntimeToCore::InteractionDecisionAck(ack) = frame.message else {
        panic!("{frame:?}")
    };
    assert!(!ack.applied);
    assert_eq!(ack.error_code.as_deref(), Some("no_active_turn"));

    let result = FunctionResult {
        delivery_id: "del_1".into(),
        call_id: call.call_id.clone(),
        success: true,
        output: Some(FunctionOutput::Text("sunny, 21.0 C".into())),
        error: None,
    };
    send(&runtime, "run_1", result).await;
    let frames = until_done(&mut runtime, "run_1").await;

    let acks: Vec<_> = frames
        .iter()
        .filter_map(|f| match f {
            RuntimeToCore::InteractionDecisionAck(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(acks.len(), 1, "{frames:?}");
    assert_eq!(acks[0].delivery_id, "del_1");
    assert!(acks[0].applied, "{:?}", acks[0]);
    assert_eq!(acks[0].error_code, None);

    let answer = frames.iter().rev().find_map(|f| match f {
        RuntimeToCore::OutputMessage(m)
            if m.status == MessageStatus::Completed
                && m.phase == Some(MessagePhase::FinalAnswer) =>
        {
            Some(m.text.as_str())
        }
        _ => None,
    });
    assert_eq!(answer, Some("FINAL: sunny, 21.0 C"));
    let RuntimeToCore::Done(done) = frames.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(done.outcome, TurnOutcome::Completed);
    runtime.shutdown().await;
}
