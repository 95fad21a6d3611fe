//! OpenAI Responses, not streamed: one `response` object with the same output items.

use crate::common;

use common::{post_json, responses_tool};
use serde_json::json;
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When, count_tokens};

#[tokio::test]
async fn text_and_tool_calls_come_back_as_output_items() {
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply {
            text: Some("Let me check.".into()),
            tool_calls: vec![
                ToolCall::new("get_weather", json!({"city": "Paris"})).id("call_a"),
                ToolCall::new("get_weather", json!({"city": "Rome"})),
            ],
            ..Reply::default()
        },
    )]);
    let model = common::start(Some(scenario)).await;
    let (status, response) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "input": [{"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "weather?"}]}],
                "tools": [responses_tool("get_weather")]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(response["object"], "response");
    assert_eq!(response["id"], "resp_1");
    assert_eq!(response["status"], "completed");
    assert_eq!(response["model"], "gpt-fake");
    let output = response["output"].as_array().unwrap();
    assert_eq!(output.len(), 3);
    assert_eq!(output[0]["type"], "message");
    assert_eq!(output[0]["content"][0]["text"], "Let me check.");
    assert_eq!(output[1]["call_id"], "call_a");
    assert_eq!(output[1]["arguments"], "{\"city\":\"Paris\"}");
    assert_eq!(
        output[1].get("namespace"),
        None,
        "no namespace on plain tools"
    );
    assert_eq!(output[2]["id"], "fc_resp_1_2");
    assert_eq!(output[2]["call_id"], "call_resp_1_2");
    assert_eq!(output[2]["arguments"], "{\"city\":\"Rome\"}");
    let expected_output = count_tokens("Let me check.")
        + 2 * count_tokens("get_weather")
        + count_tokens("{\"city\":\"Paris\"}")
        + count_tokens("{\"city\":\"Rome\"}");
    assert_eq!(response["usage"]["output_tokens"], json!(expected_output));
}

#[tokio::test]
async fn a_json_schema_request_gets_a_json_answer_text() {
    let model = common::start(None).await;
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"},
                        "confidence": {"type": "number", "minimum": 0.5}},
                        "required": ["answer", "confidence"], "additionalProperties": false});
    let (status, response) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "input": "answer",
                "text": {"format": {"type": "json_schema", "strict": true,
                                    "name": "codex_output_schema", "schema": schema}}}),
    )
    .await;
    assert_eq!(status, 200);
    let text = response["output"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(answer, json!({"answer": "", "confidence": 0.5}));
}
