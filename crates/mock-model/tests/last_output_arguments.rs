//! `"$last_output.KEY"` in a scripted call's arguments: member `KEY` of the current turn's
//! latest tool output that has one (an ID the harness made up, as Codex's `spawn_agent`
//! returns), kept as written when none has.

use crate::common;

use common::post_json;
use serde_json::{Value, json};
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When};

fn output(call_id: &str, text: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": text})
}

#[tokio::test]
async fn arguments_are_filled_from_the_latest_output_that_has_the_member() {
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply::tool_calls(vec![ToolCall::new(
            "wait_agent",
            json!({"targets": ["$last_output.agent_id"], "other": "$last_output.missing", "n": 1}),
        )]),
    )]);
    let model = common::start(Some(scenario)).await;
    let input = json!([
        {"type": "message", "role": "user", "content": "go"},
        output("c1", r#"{"agent_id":"older"}"#),
        output("c2", r#"{"agent_id":"agent-7","nickname":"Euclid"}"#),
        output("c3", r#"{"status":{},"timed_out":true}"#),
    ]);
    let (status, body) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "m", "input": input}),
    )
    .await;
    assert_eq!(status, 200);
    let call = body["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["type"] == "function_call")
        .unwrap()
        .clone();
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        arguments,
        json!({"targets": ["agent-7"], "other": "$last_output.missing", "n": 1})
    );
}
