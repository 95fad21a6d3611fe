//! A provider-side search reaches the Turn as a `web_search_call` observation: the mock model
//! answers with a Responses `web_search_call` output item, codex reports it as a `webSearch`
//! item, and the adapter publishes it started and completed with its `search` action, before
//! the answer, with web_search live or cached.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario, WebSource};
use switchboard_protocol::AdapterEvent;
use switchboard_protocol::configuration::WebSearchMode;
use switchboard_protocol::messages::{WebSearchAction, WebSearchStatus};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_search_is_a_web_search_call() {
    let Some(binary) = codex_binary("a_provider_search_is_a_web_search_call") else {
        return;
    };
    // Cached search runs at the provider too (from its index): codex reports it the same way.
    for mode in [WebSearchMode::Live, WebSearchMode::Cached] {
        search_turn(binary.clone(), mode).await;
    }
}

async fn search_turn(binary: std::path::PathBuf, mode: WebSearchMode) {
    let source = WebSource {
        url: "https://weather.example/paris".into(),
        title: None,
    };
    let scenario = Scenario::new(vec![on_request(
        1,
        Reply::web_search("weather in Paris", vec![source]).with_text("It is sunny."),
    )]);
    let model = mock_model(Some(scenario)).await;
    let config = configuration(&model.base_url(), vec![], web_search(mode));
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "Search the weather").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    let searches = web_search_calls(&events);
    let action = Some(WebSearchAction::Search {
        query: Some("weather in Paris".into()),
        queries: None,
    });
    assert_eq!(searches.len(), 2, "{mode:?}: {events:?}");
    assert_eq!(searches[0].2, WebSearchStatus::InProgress);
    assert_eq!(searches[1].2, WebSearchStatus::Completed);
    assert_eq!(searches[0].1, searches[1].1, "one item, opened then closed");
    assert_eq!(searches[1].3, action);
    let answer_at = events
        .iter()
        .position(|e| matches!(e, AdapterEvent::MessageStarted { .. }))
        .expect("an answer");
    assert!(
        searches[1].0 < answer_at,
        "the search comes before the answer"
    );
    assert_eq!(final_answer(&events).as_deref(), Some("It is sunny."));
    model.shutdown().await;
}
