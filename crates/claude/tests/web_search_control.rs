//! web_search: `live` offers the model exactly one built-in tool, claude's provider-side
//! `WebSearch`; `disabled` (and an omitted control, on the none profile) offers none. Nothing
//! else of claude's built-in set (Bash, files, WebFetch, Task, …) is ever offered.

use crate::support;

use support::*;
use switchboard_protocol::configuration::WebSearchMode;

async fn offered(binary: std::path::PathBuf, mode: Option<WebSearchMode>) -> Vec<String> {
    let controls = mode.map(web_search).unwrap_or_default();
    let session = session(binary, None, vec![], controls).await;
    let mut turn = session.turn(1, "hello").await;
    assert_completed(&until_terminal(&mut turn).await);
    let requests = session.model_requests();
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
