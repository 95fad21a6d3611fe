//! Runtime links against a scripted peer: losing a link, or restarting Core, fails started work
//! without replay (no function result is sent again, to any Runtime); work that never started
//! waits for the next Runtime that can run it.

use crate::support;

use serde_json::json;
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::TurnOutcome;

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
    let (status, _) = peer.message(&id, "again").await;
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
    peer.done(&start.run_id, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
}

#[tokio::test]
async fn an_admitted_result_is_never_sent_again_after_the_runtime_restarts() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_r").await;
    let sent = peer.admitted_result(&id, &turn, "call_r", "42").await;
    assert_eq!(sent.call_id, "call_r");

    // The Runtime restarts before it applied the result: the started Turn fails.
    peer.disconnect();
    peer.until_status(&id, "failed").await;
    peer.reconnect();
    peer.heartbeat().await;
    // An identical retry of the saved result is still accepted, and sends nothing.
    let (status, _) = peer.tool_result(&id, &turn, "call_r", "42").await;
    assert_eq!(status, 202);

    // The next Turn runs on the new Runtime: prepare, start, and never the old result.
    let (status, _) = peer.message(&id, "again").await;
    assert_eq!(status, 202);
    let frame = peer.next_frame().await.message;
    assert!(
        matches!(frame, CoreToRuntime::ExecutionPrepare(_)),
        "{frame:?}"
    );
    peer.ready(&id).await;
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start")
    };
    assert_ne!(start.turn_id, turn);
    peer.done(&start.run_id, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
    assert!(
        peer.from_core.try_recv().is_err(),
        "Core sent nothing else to the new Runtime"
    );
}

#[tokio::test]
async fn an_admitted_result_is_never_sent_again_after_core_restarts() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_c").await;
    let sent = peer.admitted_result(&id, &turn, "call_c", "42").await;
    assert_eq!(sent.call_id, "call_c");

    // Core restarts before the Runtime applied the result: recovery fails the started Turn.
    let mut peer = peer.restart_core().await;
    let session = peer.session(&id).await;
    assert_eq!(session["status"], "failed", "{session}");
    assert_eq!(session["required_actions"], json!([]));

    // The next Turn runs on the new Core's Runtime: prepare, start, and never the old result.
    let (status, _) = peer.message(&id, "again").await;
    assert_eq!(status, 202);
    let frame = peer.next_frame().await.message;
    assert!(
        matches!(frame, CoreToRuntime::ExecutionPrepare(_)),
        "{frame:?}"
    );
    peer.ready(&id).await;
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start")
    };
    assert_ne!(start.turn_id, turn);
    peer.done(&start.run_id, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
    assert!(
        peer.from_core.try_recv().is_err(),
        "Core sent nothing else to the new Runtime"
    );
}
