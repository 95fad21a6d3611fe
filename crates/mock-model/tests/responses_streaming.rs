//! OpenAI Responses, streamed: the event sequence Codex accepts, text deltas and tool calls.

use crate::common;

use common::{post_stream, responses_tool, types};
use serde_json::{Value, json};
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When, count_tokens};

#[tokio::test]
async fn text_streams_in_the_scripted_number_of_deltas() {
    let text = "The weather in Paris is sunny, 21 degrees.";
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply::text(text).deltas(4),
    )]);
    let model = common::start(Some(scenario)).await;
    let events = post_stream(
        &model,
        "/v1/responses",
        &json!({"model": "gpt-fake", "stream": true, "input": "weather?"}),
    )
    .await;

    assert_eq!(
        types(&events),
        [
            "response.created",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let data: Vec<Value> = events.iter().map(|e| e.json()).collect();
    let deltas: String = data
        .iter()
        .filter(|d| d["type"] == "response.output_text.delta")
        .map(|d| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, text);
    for (index, event) in data.iter().enumerate() {
        assert_eq!(event["sequence_number"], json!(index));
    }
    assert_eq!(data[0]["response"]["id"], "resp_1");
    assert_eq!(data[1]["item"]["status"], "in_progress");
    assert_eq!(data[1]["item"]["content"], json!([]));
    let done = &data[9]["item"];
    assert_eq!(done["id"], "msg_resp_1");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["content"][0]["text"], text);
    let completed = &data[10]["response"];
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["output"][0], *done);
    let usage = &completed["usage"];
    assert_eq!(usage["output_tokens"], json!(count_tokens(text)));
    assert_eq!(usage["input_tokens"], json!(count_tokens("weather?")));
    assert_eq!(
        usage["total_tokens"],
        json!(count_tokens(text) + count_tokens("weather?"))
    );
    assert_eq!(usage["input_tokens_details"]["cached_tokens"], 0);
    assert_eq!(usage["output_tokens_details"]["reasoning_tokens"], 0);
}

#[tokio::test]
async fn a_namespaced_tool_is_called_with_its_namespace() {
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply::tool_calls(vec![ToolCall::new(
            "mcp__lab__get_weather",
            json!({"city": "Paris"}),
        )]),
    )]);
    let model = common::start(Some(scenario)).await;
    let body = json!({
        "model": "gpt-fake", "stream": true, "input": "weather?",
        "tools": [{"type": "namespace", "name": "mcp__lab", "description": "Tools in the mcp__lab namespace.",
                   "tools": [responses_tool("get_weather")]}],
    });
    let events = post_stream(&model, "/v1/responses", &body).await;
    assert_eq!(
        types(&events),
        [
            "response.created",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let added = events[1].json();
    assert_eq!(added["item"]["arguments"], "");
    assert_eq!(added["item"]["status"], "in_progress");
    let item = events[4].json()["item"].clone();
    assert_eq!(
        item,
        json!({"type": "function_call", "id": "fc_resp_1", "call_id": "call_resp_1",
               "name": "get_weather", "arguments": "{\"city\":\"Paris\"}",
               "status": "completed", "namespace": "mcp__lab"})
    );
}
