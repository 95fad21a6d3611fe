//! A text-only Turn: the model's text streams as deltas and ends as the final answer, with usage,
//! and the request carries the Agent's instructions and the provider key from the environment.

use crate::support;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_protocol::AdapterEvent;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_only_turn_streams_the_final_answer() {
    let Some(binary) = codex_binary("text_only_turn_streams_the_final_answer") else {
        return;
    };
    let model = FakeResponses::start(Script::Text("Hello from the model".into())).await;
    let (_state, executor) = session(binary, &model.base_url(), vec![]).await;
    assert!(executor.native_session_id().is_some());

    let mut turn = start_user_turn(executor.as_ref(), 1, "Say hello").await;
    let events = until_terminal(&mut turn).await;

    assert_eq!(
        final_answer(&events).as_deref(),
        Some("Hello from the model")
    );
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            AdapterEvent::MessageDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "Hello from the model");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AdapterEvent::MessageStarted { .. }))
    );
    match events.last().unwrap() {
        AdapterEvent::Completed { usage: Some(usage) } => assert_eq!(usage.total_tokens, 15),
        other => panic!("unexpected terminal {other:?}"),
    }

    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 1);
    let body = requests[0].to_string();
    assert!(
        body.contains("SWITCHBOARD-INSTRUCTIONS"),
        "instructions reach the model"
    );
    assert!(body.contains("Say hello"));
    let auth = model
        .journal()
        .iter()
        .find_map(|r| r["headers"]["authorization"].as_str().map(str::to_owned));
    assert_eq!(auth.as_deref(), Some("Bearer sk-test-key"));
}
