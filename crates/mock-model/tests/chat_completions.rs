//! OpenAI Chat Completions, streamed and not, with `tool_calls`.

use crate::common;

use common::{post_json, post_stream};
use serde_json::{Value, json};
use switchboard_mock_model::{Reply, Rule, Scenario, ToolCall, When, count_tokens};

fn tool() -> Value {
    json!({"type": "function", "function": {"name": "get_weather",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}})
}

#[tokio::test]
async fn a_completion_carries_text_or_tool_calls() {
    let scenario = Scenario::new(vec![
        Rule::new(
            When {
                tool_output_present: Some(false),
                ..When::default()
            },
            Reply::tool_calls(vec![ToolCall::new("get_weather", json!({"city": "Oslo"}))]),
        ),
        Rule::new(When::default(), Reply::text("Cold.")),
    ]);
    let model = common::start(Some(scenario)).await;
    let mut messages = vec![json!({"role": "user", "content": "weather in Oslo?"})];
    let (status, first) = post_json(
        &model,
        "/v1/chat/completions",
        &json!({"model": "gpt-fake", "messages": messages, "tools": [tool()]}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(first["object"], "chat.completion");
    assert_eq!(first["id"], "chatcmpl-1");
    let choice = &first["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], json!(null));
    assert_eq!(
        choice["message"]["tool_calls"],
        json!([{"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}])
    );

    messages.push(choice["message"].clone());
    messages.push(json!({"role": "tool", "tool_call_id": "call_1", "content": "-3C"}));
    let (_, second) = post_json(
        &model,
        "/v1/chat/completions",
        &json!({"model": "gpt-fake", "messages": messages, "tools": [tool()]}),
    )
    .await;
    assert_eq!(second["choices"][0]["finish_reason"], "stop");
    assert_eq!(second["choices"][0]["message"]["content"], "Cold.");
    assert_eq!(second["usage"]["completion_tokens"], count_tokens("Cold."));
    assert_eq!(
        second["usage"]["total_tokens"],
        json!(second["usage"]["prompt_tokens"].as_u64().unwrap() + count_tokens("Cold."))
    );
}

#[tokio::test]
async fn a_streamed_completion_ends_with_done() {
    let scenario = Scenario::new(vec![Rule::new(
        When::default(),
        Reply {
            text: Some("Sure thing".into()),
            deltas: Some(2),
            tool_calls: vec![ToolCall::new("get_weather", json!({"city": "Oslo"}))],
            ..Reply::default()
        },
    )]);
    let model = common::start(Some(scenario)).await;
    let events = post_stream(
        &model,
        "/v1/chat/completions",
        &json!({"model": "gpt-fake", "stream": true, "stream_options": {"include_usage": true},
                "messages": [{"role": "user", "content": "hi"}], "tools": [tool()]}),
    )
    .await;
    assert!(
        events.iter().all(|e| e.name.is_none()),
        "chat frames are data-only"
    );
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| e.json())
        .collect();
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Sure thing");
    let call_chunks: Vec<&Value> = chunks
        .iter()
        .filter(|c| c["choices"][0]["delta"].get("tool_calls").is_some())
        .collect();
    assert_eq!(call_chunks.len(), 2);
    assert_eq!(
        call_chunks[0]["choices"][0]["delta"]["tool_calls"][0]["id"],
        "call_1"
    );
    assert_eq!(
        call_chunks[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"],
        "{\"city\":\"Oslo\"}"
    );
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    let usage_chunk = &chunks[chunks.len() - 1];
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(
        usage_chunk["usage"]["prompt_tokens"],
        // The tool counts too: its name and the `required` property name.
        count_tokens("hi") + count_tokens("get_weather") + count_tokens("city")
    );
}

#[tokio::test]
async fn usage_is_left_out_of_a_stream_unless_asked_for() {
    let model = common::start(None).await;
    let events = post_stream(
        &model,
        "/v1/chat/completions",
        &json!({"model": "gpt-fake", "stream": true, "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| e.json())
        .collect();
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "stop"
    );
}
