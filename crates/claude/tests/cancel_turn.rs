//! Cancel mid-Turn with the control protocol's `interrupt`: the Turn settles `Cancelled` while
//! the model is still answering, or while a function call is pending (which is then
//! abandoned), and the Session runs its next Turn normally on the same process.

mod support;

use std::time::Duration;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::{AdapterEvent, ExecutionControls, Receipt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_while_the_model_hangs() {
    let Some(binary) = claude_binary("cancel_while_the_model_hangs") else {
        return;
    };
    let model = mock_model(Some(Scenario::new(vec![on_request(
        1,
        Reply::text("too late").delay_ms(30_000),
    )])))
    .await;
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor
        .start_turn(user_turn(1, "never answered"))
        .await
        .unwrap();
    // Cancel once claude is waiting on the model: the request reached the provider.
    tokio::time::timeout(WAIT, async {
        while model_calls(&model.journal()).is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("claude never called the model");
    turn.control.cancel().await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Cancelled { .. })),
        "{events:?}"
    );

    // The process stays and answers the next Turn (the mock's default echoes).
    assert!(executor.is_resident());
    let mut next = executor.start_turn(user_turn(2, "again")).await.unwrap();
    let events = until_terminal(&mut next).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
    // The interrupted prompt did not come back as a Turn of its own.
    assert_eq!(model_calls(&model.journal()).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_abandons_a_pending_call() {
    let Some(binary) = claude_binary("cancel_abandons_a_pending_call") else {
        return;
    };
    // Claude Code merges the interrupted call's record and the next input into one user
    // message, so the second request is scripted too (the default would answer the record).
    let call = || {
        Reply::tool_calls(vec![ToolCall::new(
            "mcp__functions__get_weather",
            serde_json::json!({"city": "Rome"}),
        )])
    };
    let model = mock_model(Some(Scenario::new(vec![
        on_request(1, call()),
        on_request(2, call()),
    ])))
    .await;
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        ExecutionControls::default(),
    );
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor
        .start_turn(user_turn(1, "Weather in Rome?"))
        .await
        .unwrap();
    let call_id = next_call_id(&mut turn).await;
    turn.control.cancel().await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AdapterEvent::CallAbandoned { call_id: c } if *c == call_id)),
        "{events:?}"
    );
    assert!(
        matches!(events.last(), Some(AdapterEvent::Cancelled { .. })),
        "{events:?}"
    );
    // A result after the Turn ended is not delivered.
    let late = turn
        .control
        .submit_function_result(&call_id, text_result("warm"))
        .await;
    assert!(matches!(late, Receipt::Refused { .. }), "{late:?}");

    // The executor is idle again at once and runs the next Turn.
    let mut next = executor.start_turn(user_turn(2, "again")).await.unwrap();
    let call_id = next_call_id(&mut next).await;
    assert_eq!(
        next.control
            .submit_function_result(&call_id, text_result("warm"))
            .await,
        Receipt::Confirmed
    );
    let events = until_terminal(&mut next).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
    assert_eq!(final_answer(&events).as_deref(), Some("FINAL: warm"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_right_after_start_settles() {
    let Some(binary) = claude_binary("cancel_right_after_start_settles") else {
        return;
    };
    let model = mock_model(None).await;
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let (_state, executor) = prepare(binary, config).await;
    // Warm the process, then cancel the next Turn before claude can start it: its input is
    // dropped from claude's queue (or the just-started turn is interrupted), and either way the
    // Turn settles at once as cancelled.
    let mut warm = executor.start_turn(user_turn(1, "warm up")).await.unwrap();
    until_terminal(&mut warm).await;
    let mut turn = executor
        .start_turn(user_turn(2, "cancel me"))
        .await
        .unwrap();
    turn.control.cancel().await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(
            events.last(),
            Some(AdapterEvent::Cancelled { .. } | AdapterEvent::Completed { .. })
        ),
        "{events:?}"
    );
    let mut next = executor.start_turn(user_turn(3, "again")).await.unwrap();
    let events = until_terminal(&mut next).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
}
