//! A provider-side web search, as each provider streams it: a Responses `web_search_call`
//! output item, or Anthropic `server_tool_use` (`web_search`) + `web_search_tool_result`
//! blocks, before the answer text.

use crate::common;

use common::{post_stream, types};
use serde_json::json;
use switchboard_mock_model::{Reply, Scenario, WebSource};

fn scenario() -> Scenario {
    let source = WebSource {
        url: "https://weather.example/paris".into(),
        title: Some("Paris weather".into()),
    };
    Scenario::new(vec![
        Reply::web_search("weather in Paris", vec![source])
            .with_text("It is sunny.")
            .into(),
    ])
}

#[tokio::test]
async fn responses_stream_a_web_search_call_before_the_message() {
    let model = common::start(Some(scenario())).await;
    let body = json!({"model": "gpt-fake", "stream": true, "input": "weather?",
        "tools": [{"type": "web_search", "external_web_access": true}]});
    let events = post_stream(&model, "/v1/responses", &body).await;
    assert_eq!(
        types(&events)[..6],
        [
            "response.created",
            "response.output_item.added",
            "response.web_search_call.in_progress",
            "response.web_search_call.searching",
            "response.web_search_call.completed",
            "response.output_item.done",
        ]
    );
    let data: Vec<_> = events.iter().map(|e| e.json()).collect();
    let action = json!({"type": "search", "query": "weather in Paris",
        "sources": [{"type": "url", "url": "https://weather.example/paris"}]});
    assert_eq!(
        data[1]["item"],
        json!({"type": "web_search_call", "id": "ws_resp_1", "status": "in_progress", "action": action})
    );
    assert_eq!(data[2]["item_id"], "ws_resp_1");
    assert_eq!(
        data[5]["item"],
        json!({"type": "web_search_call", "id": "ws_resp_1", "status": "completed", "action": action})
    );
    // The answer text follows as the second output item.
    assert_eq!(data[6]["type"], "response.output_item.added");
    assert_eq!(data[6]["output_index"], 1);
    let done = data.last().unwrap();
    assert_eq!(done["type"], "response.completed");
    let output = &done["response"]["output"];
    assert_eq!(output[0]["type"], "web_search_call");
    assert_eq!(output[1]["content"][0]["text"], "It is sunny.");
}

#[tokio::test]
async fn anthropic_streams_server_tool_use_and_its_result_before_the_text() {
    let model = common::start(Some(scenario())).await;
    let body = json!({"model": "claude-fake", "max_tokens": 100, "stream": true,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 8}]});
    let events = post_stream(&model, "/v1/messages", &body).await;
    assert_eq!(
        types(&events),
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    let data: Vec<_> = events.iter().map(|e| e.json()).collect();
    assert_eq!(
        data[1]["content_block"],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}})
    );
    assert_eq!(
        data[2]["delta"],
        json!({"type": "input_json_delta", "partial_json": r#"{"query":"weather in Paris"}"#})
    );
    assert_eq!(
        data[4]["content_block"],
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "url": "https://weather.example/paris",
             "title": "Paris weather", "encrypted_content": "", "page_age": null}]})
    );
    assert_eq!(data[7]["delta"]["text"], "It is sunny.");
    assert_eq!(data[9]["delta"]["stop_reason"], "end_turn");
    assert_eq!(
        data[9]["usage"]["server_tool_use"],
        json!({"web_search_requests": 1})
    );
}

#[tokio::test]
async fn a_search_without_a_query_is_refused_at_load() {
    let err = Scenario::from_json(r#"{"rules": [{"reply": {"web_searches": [{"query": ""}]}}]}"#)
        .unwrap_err();
    assert!(
        err.to_string().contains("a web search needs a query"),
        "{err}"
    );
    let err = Scenario::from_json(
        r#"{"rules": [{"reply": {"web_searches": [{"query": "q", "engine": "x"}]}}]}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("unknown field"), "{err}");
}
