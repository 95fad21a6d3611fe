//! Runtime links against a scripted peer: losing a link fails started work without replay;
//! work that never started waits for the next Runtime that can run it.

mod support;

use serde_json::json;
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::{Done, TurnOutcome};

#[tokio::test]
async fn losing_the_link_mid_turn_fails_the_turn() {
    let mut peer = Peer::start().await;
    let (id, _run, turn) = peer.started_turn().await;
    peer.disconnect();
    let session = peer.until_status(&id, "failed").await;
    assert_eq!(session["error"], "The execution could not complete.");
    let (_, t) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns/{turn}"), None)
        .await;
    assert_eq!(t["status"], "failed");
    assert_eq!(t["error"]["code"], "internal_error");
    // The Session stays usable: new input starts a new Turn, which waits for a Runtime.
    let (status, _) = peer
        .request(
            "POST",
            &format!("/agents/sessions/{id}/events"),
            Some(json!({"events": [{"type": "agent.session.input.message", "input": "again"}]})),
        )
        .await;
    assert_eq!(status, 202);
    assert_eq!(peer.session(&id).await["status"], "in_progress");
}

#[tokio::test]
async fn a_turn_that_never_started_waits_for_the_next_runtime() {
    let mut peer = Peer::start().await;
    let (status, session) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(json!({"environment": {"type": "none"}, "agent": {"model": "m"}, "input": "hi"})),
        )
        .await;
    assert_eq!(status, 201);
    let id = session["id"].as_str().unwrap().to_owned();
    assert!(matches!(
        peer.next_frame().await.message,
        CoreToRuntime::ExecutionPrepare(_)
    ));
    // The Runtime disappears before it prepared anything: the Turn is not failed.
    peer.disconnect();
    peer.reconnect();
    assert_eq!(peer.session(&id).await["status"], "in_progress");

    // A new Runtime advertises: the queued Turn goes to it.
    peer.heartbeat().await;
    assert!(matches!(
        peer.next_frame().await.message,
        CoreToRuntime::ExecutionPrepare(_)
    ));
    peer.ready(&id).await;
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start")
    };
    peer.send(
        &start.run_id,
        Done {
            outcome: TurnOutcome::Completed,
            usage: None,
        }
        .into(),
    )
    .await;
    peer.until_status(&id, "idle").await;
}
