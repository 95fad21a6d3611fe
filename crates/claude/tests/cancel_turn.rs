//! Cancel mid-Turn with the control protocol's `interrupt`: the Turn settles `Cancelled` while
//! the model is still answering, or while a function call is pending (which is then
//! abandoned), and the Session runs its next Turn normally on the same process.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::{AdapterEvent, ExecutionControls};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_while_the_model_hangs() {
    let Some(binary) = claude_binary("cancel_while_the_model_hangs") else {
        return;
    };
    let scenario = Scenario::new(vec![on_request(
        1,
        Reply::text("too late").delay_ms(30_000),
    )]);
    let session = session(binary, Some(scenario), vec![], ExecutionControls::default()).await;
    let mut turn = session.turn(1, "never answered").await;
    // Cancel once claude is waiting on the model: the request reached the provider.
    session.wait_for_model_call().await;
    turn.control.cancel().await.unwrap();
    assert_cancelled(&until_terminal(&mut turn).await);

    // The process stays and answers the next Turn (the mock's default echoes).
    assert!(session.executor.is_resident());
    let mut next = session.turn(2, "again").await;
    let events = until_terminal(&mut next).await;
    assert_completed(&events);
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
    // The interrupted prompt did not come back as a Turn of its own.
    assert_eq!(session.model_calls().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_abandons_a_pending_call() {
    let Some(binary) = claude_binary("cancel_abandons_a_pending_call") else {
        return;
    };
    // Claude Code merges the interrupted call's record and the next input into one user
    // message, so the second request is scripted too (the default would answer the record).
    let scenario = Scenario::new(vec![
        on_request(1, weather_call("Rome")),
        on_request(2, weather_call("Rome")),
    ]);
    let session = function_session(binary, scenario).await;
    let mut turn = session.turn(1, "Weather in Rome?").await;
    let call_id = next_call_id(&mut turn).await;
    cancel_abandons(&mut turn, &call_id).await;

    // The executor is idle again at once and runs the next Turn.
    let mut next = session.turn(2, "again").await;
    let events = until_terminal_answering(&mut next, |_, _| text_result("warm")).await;
    assert_completed(&events);
    assert_eq!(final_answer(&events).as_deref(), Some("FINAL: warm"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_right_after_start_settles() {
    let Some(binary) = claude_binary("cancel_right_after_start_settles") else {
        return;
    };
    let session = session(binary, None, vec![], ExecutionControls::default()).await;
    // Warm the process, then cancel the next Turn before claude can start it: its input is
    // dropped from claude's queue (or the just-started turn is interrupted), and either way the
    // Turn settles at once as cancelled.
    let mut warm = session.turn(1, "warm up").await;
    until_terminal(&mut warm).await;
    let mut turn = session.turn(2, "cancel me").await;
    turn.control.cancel().await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(
            events.last(),
            Some(AdapterEvent::Cancelled { .. } | AdapterEvent::Completed { .. })
        ),
        "{events:?}"
    );
    let mut next = session.turn(3, "again").await;
    let events = until_terminal(&mut next).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
}
