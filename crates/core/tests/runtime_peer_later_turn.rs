//! A prepared Session's later Turn: the request that opens it also starts it, and an idle
//! Session reads the same whether Core still holds it or loads it from the store again.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_core::session::engine::KEPT_IDLE;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::TurnOutcome;

#[tokio::test]
async fn a_later_turn_is_started_by_the_request_that_opens_it() {
    let mut peer = Peer::start().await;
    let (id, run, first) = peer.started_turn().await;
    peer.done(&run, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;

    let (status, body) = peer.message(&id, "again").await;
    assert_eq!(status, 202, "{body}");

    // By the 202 the Turn is bound and started: no dispatch is left to run.
    let (_, turns) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns"), None)
        .await;
    let turn = &turns["data"][0];
    assert_ne!(turn["id"], json!(first));
    assert_eq!(turn["status"], "in_progress", "{turn}");
    assert!(turn["started_at"].is_i64(), "{turn}");
    assert_eq!(peer.session(&id).await["status"], "in_progress");
    // The Session is still prepared there: the Runtime is sent the start, and no preparation.
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start, with no execution_prepare before it")
    };
    assert_eq!(start.turn_id, turn["id"].as_str().unwrap());
    assert_eq!(start.session_id, id);

    peer.done(&start.run_id, TurnOutcome::Completed).await;
    let session = peer.until_status(&id, "idle").await;
    assert_eq!(session["error"], Value::Null);
    let (_, turns) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/turns?order=asc"),
            None,
        )
        .await;
    let statuses: Vec<&Value> = turns["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["status"])
        .collect();
    assert_eq!(statuses, [&json!("completed"), &json!("completed")]);
}

#[tokio::test]
async fn idle_sessions_read_the_same_from_memory_and_from_the_store() {
    let mut peer = Peer::start().await;
    // One more idle Session than Core keeps loaded: the first is let go and read back.
    let mut created = Vec::new();
    for _ in 0..=KEPT_IDLE {
        let (id, run, _) = peer.started_turn().await;
        peer.done(&run, TurnOutcome::Completed).await;
        created.push(peer.until_status(&id, "idle").await);
    }
    for session in [&created[0], &created[KEPT_IDLE]] {
        let id = session["id"].as_str().unwrap();
        assert_eq!(&peer.session(id).await, session);
        let (status, updated) = peer
            .request(
                "POST",
                &format!("/agents/sessions/{id}"),
                Some(json!({"metadata": {"n": "changed"}})),
            )
            .await;
        assert_eq!(status, 200, "{updated}");
        let read = peer.session(id).await;
        assert_eq!(read["metadata"], json!({"n": "changed"}));
        assert_eq!(read["agent"], session["agent"]);
        let (status, _) = peer
            .request("DELETE", &format!("/agents/sessions/{id}"), None)
            .await;
        assert_eq!(status, 200);
        let (status, _) = peer
            .request("GET", &format!("/agents/sessions/{id}"), None)
            .await;
        assert_eq!(status, 404);
    }
}
