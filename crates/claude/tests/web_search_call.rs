//! A live `WebSearch` call runs at the provider: claude answers the model's `WebSearch` tool
//! use with a nested request that carries the provider's `web_search_20250305` server tool,
//! and the Turn's usage counts that request too.

mod support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall};
use switchboard_protocol::configuration::{ContextSize, WebSearchMode};
use switchboard_protocol::{AdapterEvent, ExecutionControls, WebSearchControl};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_runs_at_the_provider_and_is_counted() {
    let Some(binary) = claude_binary("web_search_runs_at_the_provider_and_is_counted") else {
        return;
    };
    let model = mock_model(Some(
        Scenario::new(vec![on_request(
            1,
            Reply::tool_calls(vec![ToolCall::new(
                "WebSearch",
                serde_json::json!({"query": "weather in Paris"}),
            )]),
        )])
        .with_otherwise(Reply::text("It is sunny.")),
    ))
    .await;
    let controls = ExecutionControls {
        web_search: Some(WebSearchControl {
            mode: WebSearchMode::Live,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        }),
        ..Default::default()
    };
    let config = configuration(&model.base_url(), vec![], controls);
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor
        .start_turn(user_turn(1, "Search the weather"))
        .await
        .unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
    assert_eq!(final_answer(&events).as_deref(), Some("It is sunny."));

    let calls = model_calls(&model.journal());
    assert_eq!(calls.len(), 3, "call, nested search, answer");
    let nested = &calls[1]["body"]["tools"][0];
    assert_eq!(nested["type"], "web_search_20250305");
    let reported = |key: &str| {
        calls
            .iter()
            .map(|c| c["reply"]["usage"][key].as_u64().unwrap())
            .sum::<u64>()
    };
    let Some(AdapterEvent::Completed { usage: Some(usage) }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(usage.input_tokens, reported("input_tokens"));
    assert_eq!(usage.output_tokens, reported("output_tokens"));
    model.shutdown().await;
}
