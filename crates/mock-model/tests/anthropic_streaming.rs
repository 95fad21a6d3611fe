//! Anthropic Messages, streamed: the event sequence Claude Code accepts.

use crate::common;

use common::{post_stream, types};
use serde_json::json;
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When, count_tokens};

#[tokio::test]
async fn text_then_tool_use_stream_as_content_blocks() {
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply {
            text: Some("Checking the weather.".into()),
            tool_calls: vec![ToolCall::new(
                "mcp__lab__get_weather",
                json!({"city": "Paris"}),
            )],
            deltas: Some(2),
            ..Reply::default()
        },
    )]);
    let model = common::start(Some(scenario)).await;
    let body = json!({
        "model": "claude-fake", "max_tokens": 32000, "stream": true,
        "system": [{"type": "text", "text": "You are a test."}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "weather?"}]}],
        "tools": [{"name": "mcp__lab__get_weather", "description": "Get weather",
                   "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
    });
    let events = post_stream(&model, "/v1/messages?beta=true", &body).await;
    assert_eq!(
        types(&events),
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    let data: Vec<_> = events.iter().map(|e| e.json()).collect();
    let start = &data[0]["message"];
    assert_eq!(start["id"], "msg_fake_1");
    assert_eq!(start["model"], "claude-fake");
    assert_eq!(start["content"], json!([]));
    assert_eq!(start["stop_reason"], json!(null));
    let input_tokens = count_tokens("You are a test.")
        + count_tokens("weather?")
        + count_tokens("mcp__lab__get_weather")
        + count_tokens("Get weather");
    assert_eq!(
        start["usage"],
        json!({"input_tokens": input_tokens, "output_tokens": 1,
               "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
    );
    assert_eq!(
        data[1],
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    );
    let text: String = data[2..4]
        .iter()
        .map(|d| {
            assert_eq!(d["delta"]["type"], "text_delta");
            d["delta"]["text"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(text, "Checking the weather.");
    assert_eq!(
        data[5],
        json!({"type": "content_block_start", "index": 1,
               "content_block": {"type": "tool_use", "id": "toolu_1_1", "name": "mcp__lab__get_weather", "input": {}}})
    );
    assert_eq!(
        data[6]["delta"],
        json!({"type": "input_json_delta", "partial_json": "{\"city\":\"Paris\"}"})
    );
    assert_eq!(data[7], json!({"type": "content_block_stop", "index": 1}));
    let output_tokens = count_tokens("Checking the weather.")
        + count_tokens("mcp__lab__get_weather")
        + count_tokens("{\"city\":\"Paris\"}");
    assert_eq!(
        data[8],
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
               "usage": {"output_tokens": output_tokens}})
    );
}

#[tokio::test]
async fn a_text_answer_ends_the_turn() {
    let model = common::start(Some(Scenario::new(vec![Rule::new(
        When::default(),
        Reply::text("done"),
    )])))
    .await;
    let body = json!({"model": "claude-fake", "stream": true,
                      "messages": [{"role": "user", "content": "hi"}]});
    // Without `?beta=true` too.
    let events = post_stream(&model, "/v1/messages", &body).await;
    let delta = events[events.len() - 2].json();
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"]["output_tokens"], 1);
}
