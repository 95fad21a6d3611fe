//! Steering: a further `user` line joins the running Turn. Sent while a function call is
//! pending, claude folds it into the same native turn (the next model request carries it); sent
//! during the last model request, claude runs it as a native turn of its own, and the Turn
//! lasts until that one ends, with a single terminal event and the later answer as its final
//! answer.

mod support;

use std::time::Duration;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::messages::MessagePhase;
use switchboard_protocol::{AdapterEvent, ExecutionControls, InputPart, Receipt};

fn steer_text(text: &str) -> Vec<InputPart> {
    vec![InputPart::InputText { text: text.into() }]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steer_joins_the_running_turn() {
    let Some(binary) = claude_binary("a_steer_joins_the_running_turn") else {
        return;
    };
    let model = mock_model(Some(Scenario::new(vec![on_request(
        1,
        Reply::tool_calls(vec![ToolCall::new(
            "mcp__functions__get_weather",
            serde_json::json!({"city": "Nice"}),
        )]),
    )])))
    .await;
    let config = configuration(
        &model.base_url(),
        vec![get_weather()],
        ExecutionControls::default(),
    );
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor
        .start_turn(user_turn(1, "Weather in Nice?"))
        .await
        .unwrap();
    let call_id = next_call_id(&mut turn).await;
    turn.control
        .steer(steer_text("STEERED: and tomorrow too"))
        .await
        .unwrap();
    // Give claude a moment to queue the steer before the result frees the turn to go on.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        turn.control
            .submit_function_result(&call_id, text_result("mild"))
            .await,
        Receipt::Confirmed
    );
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 2, "one native turn: call, then answer");
    assert!(
        requests[1]["messages"]
            .to_string()
            .contains("STEERED: and tomorrow too")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_steer_extends_the_turn() {
    let Some(binary) = claude_binary("a_late_steer_extends_the_turn") else {
        return;
    };
    let model = mock_model(Some(Scenario::new(vec![
        on_request(1, Reply::text("first answer").delay_ms(1500)),
        on_request(2, Reply::text("answer to the steer")),
    ])))
    .await;
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor.start_turn(user_turn(1, "hello")).await.unwrap();
    tokio::time::timeout(WAIT, async {
        while model_calls(&model.journal()).is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("claude never called the model");
    turn.control
        .steer(steer_text("STEERED: one more thing"))
        .await
        .unwrap();
    let events = until_terminal(&mut turn).await;
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1);
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
    let messages = completed_messages(&events);
    let phases: Vec<_> = messages
        .iter()
        .map(|(_, phase, text)| (*phase, text.as_str()))
        .collect();
    assert_eq!(
        phases,
        vec![
            (MessagePhase::Commentary, "first answer"),
            (MessagePhase::FinalAnswer, "answer to the steer"),
        ]
    );
    // The next Turn is a Turn of its own, not a leftover of this one.
    let mut next = executor.start_turn(user_turn(2, "bye")).await.unwrap();
    let events = until_terminal(&mut next).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: bye"));
}
