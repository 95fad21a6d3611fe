//! A text Turn on a hermetic process: the answer streams as deltas and ends as the final
//! answer; the Turn's usage is what the provider reported; the provider gets the Session's key,
//! model, output limit and instructions, and nothing but the model endpoint is called.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::messages::MessagePhase;
use switchboard_protocol::{AdapterEvent, ExecutionControls};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_answer_streams_with_usage() {
    let Some(binary) = claude_binary("a_text_answer_streams_with_usage") else {
        return;
    };
    let scenario = Scenario::new(vec![on_request(
        1,
        Reply::text("The answer is forty-two.").deltas(3),
    )]);
    let session = session(binary, Some(scenario), vec![], ExecutionControls::default()).await;
    let mut turn = session.turn(1, "What is the answer?").await;
    let events = until_terminal(&mut turn).await;

    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AdapterEvent::MessageDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.len(), 3, "{events:?}");
    assert_eq!(deltas.concat(), "The answer is forty-two.");
    assert!(matches!(
        &events[0],
        AdapterEvent::MessageStarted { item_id, phase: None } if item_id == "msg_fake_1"
    ));
    assert_eq!(
        completed_messages(&events),
        vec![(
            "msg_fake_1".to_owned(),
            MessagePhase::FinalAnswer,
            "The answer is forty-two.".to_owned()
        )]
    );

    // Usage is the provider's own count for the Turn's request.
    let journal = session.model.journal();
    let calls = model_calls(&journal);
    assert_eq!(calls.len(), 1);
    let reported = &calls[0]["reply"]["usage"];
    let Some(AdapterEvent::Completed { usage: Some(usage) }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        usage.input_tokens,
        reported["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        usage.output_tokens,
        reported["output_tokens"].as_u64().unwrap()
    );
    assert_eq!(usage.total_tokens, usage.input_tokens + usage.output_tokens);

    // What the provider saw.
    let request = &calls[0];
    assert_eq!(request["headers"]["x-api-key"], "sk-ant-test-key");
    assert_eq!(request["body"]["model"], "claude-fake-1");
    assert_eq!(request["body"]["max_tokens"], 4096);
    assert!(
        request["body"]["system"]
            .to_string()
            .contains("SWITCHBOARD-INSTRUCTIONS: answer briefly."),
        "instructions reach the system prompt"
    );
    assert!(
        offered_tools(&request["body"]).is_empty(),
        "the none profile offers no tools"
    );
    // Only the connectivity probe and the model call: no telemetry, no side requests.
    for entry in &journal {
        let path = entry["path"].as_str().unwrap_or("");
        assert!(
            path == "/" || path == "/v1/messages" || path == "/v1/messages/count_tokens",
            "unexpected request {path}"
        );
    }
    session.model.shutdown().await;
}
