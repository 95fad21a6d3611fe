//! web_search: `live` offers the model exactly one built-in tool, claude's provider-side
//! `WebSearch`; `disabled` (and an omitted control, on the none profile) offers none. Nothing
//! else of claude's built-in set (Bash, files, WebFetch, Task, …) is ever offered.

mod support;

use support::*;
use switchboard_protocol::configuration::{ContextSize, WebSearchMode};
use switchboard_protocol::{AdapterEvent, ExecutionControls, WebSearchControl};

async fn offered(binary: std::path::PathBuf, web_search: Option<WebSearchMode>) -> Vec<String> {
    let model = mock_model(None).await;
    let controls = ExecutionControls {
        web_search: web_search.map(|mode| WebSearchControl {
            mode,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        }),
        ..Default::default()
    };
    let config = configuration(&model.base_url(), vec![], controls);
    let (_state, executor) = prepare(binary, config).await;
    let mut turn = executor.start_turn(user_turn(1, "hello")).await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 1);
    offered_tools(&requests[0])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_offers_only_web_search_and_disabled_offers_nothing() {
    let Some(binary) = claude_binary("live_offers_only_web_search_and_disabled_offers_nothing")
    else {
        return;
    };
    assert_eq!(
        offered(binary.clone(), Some(WebSearchMode::Live)).await,
        vec!["WebSearch".to_owned()]
    );
    assert!(
        offered(binary.clone(), Some(WebSearchMode::Disabled))
            .await
            .is_empty()
    );
    assert!(offered(binary, None).await.is_empty());
}
