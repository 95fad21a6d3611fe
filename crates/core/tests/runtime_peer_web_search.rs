//! `web_search_call` frames from a scripted Runtime peer become public `web_search_call` Items:
//! one Item per native search, with its action; a search reported only once it finished is
//! stored completed; a search still open when the Turn settles is stored `incomplete`, keeping
//! the action it started with; a failed search is `incomplete` too.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_protocol::messages::{
    TurnOutcome, WebSearchAction, WebSearchCall, WebSearchStatus,
};

fn search(id: &str, status: WebSearchStatus, action: Option<WebSearchAction>) -> WebSearchCall {
    WebSearchCall {
        item_id: id.into(),
        status,
        action,
    }
}

fn query(q: &str) -> Option<WebSearchAction> {
    Some(WebSearchAction::Search {
        query: Some(q.into()),
        queries: None,
    })
}

#[tokio::test]
async fn web_search_frames_become_web_search_call_items() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    let frames = [
        search(
            "ws_open",
            WebSearchStatus::InProgress,
            query("paris weather"),
        ),
        search(
            "ws_done",
            WebSearchStatus::Completed,
            query("paris forecast"),
        ),
        search(
            "ws_page",
            WebSearchStatus::InProgress,
            Some(WebSearchAction::OpenPage {
                url: Some("https://weather.example/".into()),
            }),
        ),
        // The end repeats no action: the one it started with stays.
        search("ws_page", WebSearchStatus::Incomplete, None),
        // Reported again after its end: ignored.
        search(
            "ws_done",
            WebSearchStatus::Completed,
            Some(WebSearchAction::Other),
        ),
    ];
    for frame in frames {
        peer.send(&run, frame.into()).await;
    }
    peer.done(&run, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;

    let (status, items) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/turns/{turn}/items?order=asc"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{items}");
    let searches: Vec<&Value> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "web_search_call")
        .collect();
    let shape = |i: &Value| {
        let mut i = i.clone();
        assert!(i["id"].as_str().unwrap().starts_with("item_"), "{i}");
        i.as_object_mut().unwrap().remove("id");
        i
    };
    let search_item = |action: Value, status: &str| json!({"type": "web_search_call", "turn_id": turn, "action": action, "status": status});
    assert_eq!(
        searches.iter().map(|i| shape(i)).collect::<Vec<_>>(),
        vec![
            search_item(
                json!({"type": "search", "query": "paris weather", "queries": null}),
                "incomplete"
            ),
            search_item(
                json!({"type": "search", "query": "paris forecast", "queries": null}),
                "completed"
            ),
            search_item(
                json!({"type": "open_page", "url": "https://weather.example/"}),
                "incomplete"
            ),
        ]
    );
    let ids: std::collections::HashSet<_> = searches.iter().map(|i| &i["id"]).collect();
    assert_eq!(ids.len(), 3, "one public Item per native search");
}
