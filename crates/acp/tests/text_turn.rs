//! A text Turn on codex-acp: the model's text streams as one message Item that ends as the
//! final answer, and the Agent's instructions and the provider key reach the model.

use crate::support;

use support::*;
use switchboard_acp::CODEX_ACP;
use switchboard_mock_model::{Reply, Rule, Scenario};
use switchboard_protocol::AdapterEvent;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_streams_the_final_answer() {
    let Some(binary) = agent_binary("text_turn_streams_the_final_answer", &CODEX_ACP) else {
        return;
    };
    let scenario = Scenario::new(vec![Rule::from(
        Reply::text("Hello from the model").deltas(3),
    )]);
    let model = mock_model(Some(scenario)).await;
    let (_state, executor) =
        prepare(CODEX_ACP, binary, configuration(&model.base_url(), vec![])).await;
    assert!(executor.native_session_id().is_some());

    let mut turn = start_user_turn(executor.as_ref(), 1, "Say hello").await;
    let events = until_terminal(&mut turn).await;
    eprintln!("{events:#?}");

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
    assert!(matches!(events[0], AdapterEvent::MessageStarted { .. }));
    assert_completed(&events);

    let journal = model.journal();
    let body = journal
        .iter()
        .find(|r| r["path"] == "/v1/responses")
        .unwrap()
        .to_string();
    assert!(
        body.contains("SWITCHBOARD-INSTRUCTIONS"),
        "instructions reach the model"
    );
    assert!(body.contains("Say hello"));
    let auth = journal
        .iter()
        .find_map(|r| r["headers"]["authorization"].as_str().map(str::to_owned));
    assert_eq!(auth.as_deref(), Some("Bearer sk-test-key"));
}
