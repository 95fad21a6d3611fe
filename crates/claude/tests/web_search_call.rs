//! A live `WebSearch` call runs at the provider: claude answers the model's `WebSearch` tool
//! use with a nested request that carries the provider's `web_search_20250305` server tool,
//! and the Turn's usage counts that request too.

mod support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::configuration::WebSearchMode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_runs_at_the_provider_and_is_counted() {
    let Some(binary) = claude_binary("web_search_runs_at_the_provider_and_is_counted") else {
        return;
    };
    let search = ToolCall::new(
        "WebSearch",
        serde_json::json!({"query": "weather in Paris"}),
    );
    let scenario = Scenario::new(vec![on_request(1, Reply::tool_calls(vec![search]))])
        .with_otherwise(Reply::text("It is sunny."));
    let session = session(
        binary,
        Some(scenario),
        vec![],
        web_search(WebSearchMode::Live),
    )
    .await;
    let mut turn = session.turn(1, "Search the weather").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    assert_eq!(final_answer(&events).as_deref(), Some("It is sunny."));

    let calls = session.model_calls();
    assert_eq!(calls.len(), 3, "call, nested search, answer");
    let nested = &calls[1]["body"]["tools"][0];
    assert_eq!(nested["type"], "web_search_20250305");
    let Some(AdapterEvent::Completed { usage: Some(usage) }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(usage.input_tokens, reported_usage(&calls, "input_tokens"));
    assert_eq!(usage.output_tokens, reported_usage(&calls, "output_tokens"));
    session.model.shutdown().await;
}
