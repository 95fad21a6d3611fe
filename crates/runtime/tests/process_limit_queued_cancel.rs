//! A Turn queued for a process slot can be cancelled: it ends with the normal cancelled
//! settlement (`done{cancelled}`) without reaching the harness, and the Session runs its next
//! Turn once a slot frees.

use crate::support;

use support::limit::*;
use support::mcp::{binary, configuration, model_requests, prepare};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{Done, PreparationState, PromptCancel, TurnOutcome};

fn outcome(frames: &[RuntimeToCore]) -> TurnOutcome {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => done.outcome,
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_turn_is_cancelled() {
    let harness = HarnessId::Codex;
    let Some(binary) = binary(harness, "a_queued_turn_is_cancelled") else {
        return;
    };
    let model = weather_model().await;
    let state = support::scratch("limit-cancel-");
    let mut runtime = runtime_limited(harness, binary, state.path(), 1);
    let peak = ChildPeak::start();
    for (session, functions) in [("sess_2", vec![]), ("sess_1", vec![support::get_weather()])] {
        let mut config = configuration(harness, &model, vec![]);
        config.function_tools = functions;
        let (prepared, error) = prepare(&mut runtime, session, config).await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    }
    start_run(&runtime, "sess_1", "run_1", "weather please").await;
    let call = until_call(&mut runtime, "run_1").await;

    let mut notices = runtime.notices();
    start_run(&runtime, "sess_2", "run_2", "never-sent").await;
    until_queued(&mut notices, "run_2").await;
    support::send(&runtime, "run_2", PromptCancel {}).await;
    let frame = support::next_frame(&mut runtime).await;
    assert_eq!(frame.id.as_deref(), Some("run_2"));
    assert_eq!(
        frame.message,
        RuntimeToCore::Done(Done {
            outcome: TurnOutcome::Cancelled,
            usage: None
        })
    );

    // The busy Turn was untouched; once it ends, sess_2 gets the slot.
    answer(&runtime, "run_1", &call).await;
    let frames = support::until_done(&mut runtime, "run_1").await;
    assert_eq!(outcome(&frames), TurnOutcome::Completed);
    start_run(&runtime, "sess_2", "run_3", "hello").await;
    let frames = support::until_done(&mut runtime, "run_3").await;
    assert_eq!(outcome(&frames), TurnOutcome::Completed, "{frames:?}");

    let bodies: Vec<String> = model_requests(&model)
        .iter()
        .map(|b| b.to_string())
        .collect();
    assert!(
        bodies.iter().all(|b| !b.contains("never-sent")),
        "{bodies:?}"
    );
    assert!(
        peak.peak() <= 1,
        "{} harness processes were live at once",
        peak.peak()
    );
    runtime.shutdown().await;
}
