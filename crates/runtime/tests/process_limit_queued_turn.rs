//! With `max_live_harnesses: 2` and both processes busy (function Turns waiting on their
//! results), a third Session's Turn waits queued instead of failing, and starts once a result
//! completes one of the busy Turns, whose process is then evicted for it.

use crate::support;

use support::limit::*;
use support::mcp::{binary, configuration, prepare};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{PreparationState, TurnOutcome};
use switchboard_runtime::Notice;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_beyond_the_limit_waits_for_a_slot() {
    let harness = HarnessId::Codex;
    let Some(binary) = binary(harness, "a_turn_beyond_the_limit_waits_for_a_slot") else {
        return;
    };
    let model = weather_model().await;
    let state = support::scratch("limit-queue-");
    let mut runtime = runtime_limited(harness, binary, state.path(), 2);
    let peak = ChildPeak::start();
    // sess_3 first, so that preparing the other two evicts it and its Turn needs a new process.
    for (session, functions) in [
        ("sess_3", vec![]),
        ("sess_1", vec![support::get_weather()]),
        ("sess_2", vec![support::get_weather()]),
    ] {
        let mut config = configuration(harness, &model, vec![]);
        config.function_tools = functions;
        let (prepared, error) = prepare(&mut runtime, session, config).await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    }
    start_run(&runtime, "sess_1", "run_1", "weather please").await;
    let call_1 = until_call(&mut runtime, "run_1").await;
    start_run(&runtime, "sess_2", "run_2", "weather please").await;
    let call_2 = until_call(&mut runtime, "run_2").await;

    let mut notices = runtime.notices();
    start_run(&runtime, "sess_3", "run_3", "hello").await;
    until_queued(&mut notices, "run_3").await;

    // A result completes run_1; only then does run_3 get sess_1's slot.
    answer(&runtime, "run_1", &call_1).await;
    let mut frames = Vec::new();
    while !matches!(frames.last(), Some((run, RuntimeToCore::Done(_))) if run == "run_3") {
        let frame = support::next_frame(&mut runtime).await;
        frames.push((frame.id.unwrap_or_default(), frame.message));
    }
    let run_1_done = frames
        .iter()
        .position(|(run, m)| run == "run_1" && matches!(m, RuntimeToCore::Done(_)))
        .expect("run_1 completed");
    let run_3_first = frames.iter().position(|(run, _)| run == "run_3").unwrap();
    assert!(run_1_done < run_3_first, "{frames:?}");
    assert!(frames.iter().all(|(run, _)| run != "run_2"), "{frames:?}");
    for run in ["run_1", "run_3"] {
        let outcome = frames.iter().rev().find_map(|(r, m)| match m {
            RuntimeToCore::Done(done) if r == run => Some(done.outcome),
            _ => None,
        });
        assert_eq!(outcome, Some(TurnOutcome::Completed), "{run}: {frames:?}");
    }
    let evicted: Vec<_> = std::iter::from_fn(|| notices.try_recv().ok())
        .filter_map(|n| match n {
            Notice::Evicted { session_id } => Some(session_id),
            _ => None,
        })
        .collect();
    assert_eq!(evicted, ["sess_1"]);

    // run_2 kept its process and its pending call throughout.
    answer(&runtime, "run_2", &call_2).await;
    let frames = support::until_done(&mut runtime, "run_2").await;
    let Some(RuntimeToCore::Done(done)) = frames.last() else {
        panic!("{frames:?}")
    };
    assert_eq!(done.outcome, TurnOutcome::Completed);
    assert!(
        peak.peak() <= 2,
        "{} harness processes were live at once",
        peak.peak()
    );
    runtime.shutdown().await;
}
