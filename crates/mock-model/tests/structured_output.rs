//! JSON-schema answers: Claude Code's `StructuredOutput` tool call for `--json-schema` runs,
//! and JSON text for OpenAI `text.format` / `response_format`.

use crate::common;

use common::post_json;
use serde_json::{Value, json};
use switchboard_mock_model::{Reply, Rule, Scenario, When};

fn schema() -> Value {
    json!({"type": "object", "properties": {"answer": {"type": "string"},
           "confidence": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
           "required": ["answer", "confidence", "tags"], "additionalProperties": false})
}

fn structured_output_tool() -> Value {
    json!({"name": "StructuredOutput",
           "description": "Use this tool to return your final response in the requested structured format.",
           "input_schema": schema()})
}

#[tokio::test]
async fn claude_json_schema_runs_get_a_structured_output_call() {
    let model = common::start(None).await;
    let (_, message) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "messages": [{"role": "user", "content": "answer"}],
                "tools": [structured_output_tool()]}),
    )
    .await;
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(message["content"][0]["name"], "StructuredOutput");
    let input = &message["content"][0]["input"];
    assert_eq!(*input, json!({"answer": "", "confidence": 0, "tags": [""]}));
    let validator = jsonschema::validator_for(&schema()).unwrap();
    assert!(validator.is_valid(input));
}

#[tokio::test]
async fn a_scripted_structured_answer_follows_the_protocol() {
    let answer = json!({"answer": "42", "confidence": 0.9, "tags": ["x"]});
    let scenario = Scenario::new(vec![Rule::new(
        When {
            json_schema: Some(true),
            ..When::default()
        },
        Reply::structured(answer.clone()),
    )]);
    let model = common::start(Some(scenario)).await;

    let (_, message) = post_json(
        &model,
        "/v1/messages",
        &json!({"model": "claude-fake", "messages": [{"role": "user", "content": "answer"}],
                "tools": [structured_output_tool()]}),
    )
    .await;
    assert_eq!(message["content"][0]["input"], answer);

    let (_, response) = post_json(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "input": "answer",
                "text": {"format": {"type": "json_schema", "name": "s", "strict": true, "schema": schema()}}}),
    )
    .await;
    let text = response["output"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), answer);
    // `0.9` is sent as written (serde_json keeps number text exactly).
    assert!(text.contains("0.9"));

    let (_, completion) = post_json(
        &model,
        "/v1/chat/completions",
        &json!({"model": "gpt-fake", "messages": [{"role": "user", "content": "answer"}],
                "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": schema()}}}),
    )
    .await;
    let text = completion["choices"][0]["message"]["content"]
        .as_str()
        .unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), answer);
}

#[tokio::test]
async fn anthropic_output_format_gets_json_text() {
    let model = common::start(None).await;
    let (_, message) = post_json(
        &model,
        "/v1/messages",
        &json!({"model": "claude-fake", "messages": [{"role": "user", "content": "answer"}],
                "output_format": {"type": "json_schema", "schema": schema()}}),
    )
    .await;
    let text = message["content"][0]["text"].as_str().unwrap();
    let value: Value = serde_json::from_str(text).unwrap();
    assert!(
        jsonschema::validator_for(&schema())
            .unwrap()
            .is_valid(&value)
    );
}
