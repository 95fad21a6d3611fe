//! Anthropic Messages, not streamed, plus the side routes Claude Code calls: count_tokens and
//! the `HEAD /` connectivity probe.

use crate::common;

use common::post_json;
use serde_json::json;
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When, count_tokens};

#[tokio::test]
async fn a_message_carries_the_tool_use_block() {
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply::tool_calls(vec![
            ToolCall::new("mcp__lab__get_weather", json!({"city": "Paris"})).id("toolu_x"),
        ]),
    )]);
    let model = common::start(Some(scenario)).await;
    let (status, message) = post_json(
        &model,
        "/v1/messages?beta=true",
        &json!({"model": "claude-fake", "max_tokens": 1000,
                "messages": [{"role": "user", "content": "weather?"}]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        message,
        json!({
            "id": "msg_fake_1", "type": "message", "role": "assistant", "model": "claude-fake",
            "content": [{"type": "tool_use", "id": "toolu_x", "name": "mcp__lab__get_weather",
                         "input": {"city": "Paris"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": count_tokens("weather?"),
                      "output_tokens": count_tokens("mcp__lab__get_weather") + count_tokens("{\"city\":\"Paris\"}"),
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        })
    );
}

#[tokio::test]
async fn count_tokens_counts_the_prompt() {
    let model = common::start(None).await;
    let (status, count) = post_json(
        &model,
        "/v1/messages/count_tokens?beta=true",
        &json!({"model": "claude-fake", "system": "Be brief.",
                "messages": [{"role": "user", "content": "How are you today?"}]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        count,
        json!({"input_tokens": count_tokens("Be brief.") + count_tokens("How are you today?")})
    );
    // count_tokens is not a model call: the next model request is still request 1.
    let (_, message) = post_json(
        &model,
        "/v1/messages",
        &json!({"model": "m", "messages": [{"role": "user", "content": "x"}]}),
    )
    .await;
    assert_eq!(message["id"], "msg_fake_1");
}

#[tokio::test]
async fn head_root_answers_200() {
    let model = common::start(None).await;
    let response = reqwest::Client::new()
        .head(model.base_url())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(model.journal()[0]["method"], "HEAD");
    assert_eq!(model.journal()[0]["path"], "/");
}
