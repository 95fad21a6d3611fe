//! A live `WebSearch` call runs at the provider: claude answers the model's `WebSearch` tool
//! use with a nested request that carries the provider's `web_search_20250305` server tool,
//! and the Turn's usage counts that request too. The search is a `web_search_call` observation:
//! opened by the `WebSearch` tool use, closed by claude's result for it, before the answer.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, ToolCall, WebSource};
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::configuration::WebSearchMode;
use switchboard_protocol::messages::{WebSearchAction, WebSearchStatus};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_runs_at_the_provider_and_is_counted() {
    let Some(binary) = claude_binary("web_search_runs_at_the_provider_and_is_counted") else {
        return;
    };
    let search = ToolCall::new(
        "WebSearch",
        serde_json::json!({"query": "weather in Paris"}),
    );
    let source = WebSource {
        url: "https://weather.example/paris".into(),
        title: Some("Paris weather".into()),
    };
    // The nested request answers as the provider would: its search, then the text.
    let found = Reply::web_search("weather in Paris", vec![source]).with_text("Paris: sunny.");
    let scenario = Scenario::new(vec![
        on_request(1, Reply::tool_calls(vec![search])),
        on_request(2, found),
    ])
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
    assert!(
        calls[2]["body"]
            .to_string()
            .contains("weather.example/paris"),
        "the search's sources reached the model"
    );
    let searches = web_search_calls(&events);
    let action = Some(WebSearchAction::Search {
        query: Some("weather in Paris".into()),
        queries: None,
    });
    assert_eq!(
        searches
            .iter()
            .map(|s| (s.1.as_str(), s.2, s.3.clone()))
            .collect::<Vec<_>>(),
        vec![
            ("toolu_1", WebSearchStatus::InProgress, action.clone()),
            ("toolu_1", WebSearchStatus::Completed, action),
        ]
    );
    let answer_at = events
        .iter()
        .rposition(|e| matches!(e, AdapterEvent::MessageStarted { .. }))
        .expect("an answer");
    assert!(
        searches[1].0 < answer_at,
        "the search ends before the answer"
    );
    let Some(AdapterEvent::Completed { usage: Some(usage) }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(usage.input_tokens, reported_usage(&calls, "input_tokens"));
    assert_eq!(usage.output_tokens, reported_usage(&calls, "output_tokens"));
    session.model.shutdown().await;
}
