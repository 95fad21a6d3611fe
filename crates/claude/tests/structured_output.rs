//! Structured output: the schema reaches the binary as `--json-schema` (claude offers it as its
//! `StructuredOutput` tool), and the final answer is claude's `result.result` byte for byte, as
//! one completed `final_answer` message under the StructuredOutput call's tool-use id with the
//! whole text in one delta. The model's prose before it stays commentary under its own id.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::messages::MessagePhase;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_is_the_native_result_text() {
    let Some(binary) = claude_binary("the_answer_is_the_native_result_text") else {
        return;
    };
    let answer = r#"{"answer":"forty-two","confidence":0.5,"tags":["a","b"],"nested":{"z":1,"a":[true,null]}}"#;
    let mut reply = Reply::text("Let me answer.");
    reply.tool_calls = vec![
        ToolCall::new("StructuredOutput", serde_json::from_str(answer).unwrap()).id("toolu_answer"),
    ];
    let schema = r#"{"type":"object","properties":{"answer":{"type":"string"},"confidence":{"type":"number","maximum":10.50},"tags":{"type":"array","items":{"type":"string"}},"nested":{"type":"object"}},"required":["answer","confidence"]}"#;
    let session = session(
        binary,
        Some(Scenario::new(vec![on_request(1, reply)])),
        vec![],
        output_schema(serde_json::from_str(schema).unwrap()),
    )
    .await;
    let mut turn = session.turn(1, "Answer in structure").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);

    let messages = completed_messages(&events);
    assert_eq!(
        messages,
        vec![
            (
                "msg_fake_1".to_owned(),
                MessagePhase::Commentary,
                "Let me answer.".to_owned()
            ),
            (
                "toolu_answer".to_owned(),
                MessagePhase::FinalAnswer,
                answer.to_owned()
            ),
        ]
    );
    // The answer's stream: opened as final_answer, the whole text in one delta.
    let answer_events: Vec<_> = events
        .iter()
        .filter(|e| match e {
            AdapterEvent::MessageStarted { item_id, .. }
            | AdapterEvent::MessageDelta { item_id, .. }
            | AdapterEvent::MessageCompleted { item_id, .. } => item_id == "toolu_answer",
            _ => false,
        })
        .cloned()
        .collect();
    assert_eq!(
        answer_events[..2],
        [
            AdapterEvent::MessageStarted {
                item_id: "toolu_answer".into(),
                phase: Some(MessagePhase::FinalAnswer)
            },
            AdapterEvent::MessageDelta {
                item_id: "toolu_answer".into(),
                delta: answer.into()
            },
        ]
    );
    assert_eq!(answer_events.len(), 3);

    // Byte for byte what the model produced as the StructuredOutput call's arguments.
    let calls = session.model_calls();
    assert_eq!(
        calls.len(),
        1,
        "claude ends the Turn without another model call"
    );
    assert_eq!(calls[0]["reply"]["tool_calls"][0]["arguments"], answer);
    // The schema reached the model as the StructuredOutput tool's input schema.
    let tool = calls[0]["body"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "StructuredOutput")
        .unwrap()
        .clone();
    assert_eq!(
        tool["input_schema"]["required"],
        serde_json::json!(["answer", "confidence"])
    );
    session.model.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_without_structured_output_fails() {
    let Some(binary) = claude_binary("a_turn_without_structured_output_fails") else {
        return;
    };
    // The model never calls the StructuredOutput tool, however often claude asks.
    let session = session(
        binary,
        Some(Scenario::new(vec![Reply::text("plain prose").into()])),
        vec![],
        output_schema(
            serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        ),
    )
    .await;
    let mut turn = session.turn(1, "Answer in structure").await;
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Failed { .. })),
        "{events:?}"
    );
    assert_eq!(
        final_answer(&events),
        None,
        "prose never becomes the answer"
    );
    session.model.shutdown().await;
}
