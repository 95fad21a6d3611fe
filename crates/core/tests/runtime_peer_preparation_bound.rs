//! Core's bound on a preparation covers the preparation itself. A preparation the Runtime
//! reports `queued` (waiting for a harness process slot or a launch) outlasts the bound, and its
//! Turn starts once the Runtime reports `preparing`, then `ready`; from `preparing` on the bound
//! runs again, so a Runtime that never settles a preparation fails its Turn.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::PreparationState;

const BOUND: Duration = Duration::from_millis(500);

/// Creates a Session whose first Turn needs a preparation, and reads Core's
/// `execution_prepare` for it.
async fn preparing(peer: &mut Peer) -> String {
    let body = json!({
        "environment": {"type": "none"},
        "agent": {"model": "m"},
        "input": "go",
    });
    let (status, session) = peer.request("POST", "/agents/sessions", Some(body)).await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let CoreToRuntime::ExecutionPrepare(prepare) = peer.next_frame().await.message else {
        panic!("expected execution_prepare first")
    };
    assert_eq!(prepare.session_id, id);
    id
}

#[tokio::test]
async fn a_queued_preparation_outlasts_the_bound_and_its_turn_starts() {
    let mut peer = Peer::start_with_preparation_timeout(BOUND).await;
    let id = preparing(&mut peer).await;
    peer.preparation(&id, PreparationState::Preparing).await;
    peer.preparation(&id, PreparationState::Queued).await;
    // Three bounds pass while it is queued; the Turn keeps waiting (polled throughout).
    let until = tokio::time::Instant::now() + BOUND * 3;
    while tokio::time::Instant::now() < until {
        let session = peer.session(&id).await;
        assert_ne!(session["status"], "failed", "{session}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    peer.preparation(&id, PreparationState::Preparing).await;
    peer.ready(&id).await;
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start after ready")
    };
    assert_eq!(start.session_id, id);
}

#[tokio::test]
async fn a_preparation_that_never_settles_fails_its_turn_after_the_bound() {
    let mut peer = Peer::start_with_preparation_timeout(BOUND).await;
    let id = preparing(&mut peer).await;
    peer.preparation(&id, PreparationState::Queued).await;
    // Out of the queue, the bound runs again; nothing more comes.
    peer.preparation(&id, PreparationState::Preparing).await;
    let session = peer.until_status(&id, "failed").await;
    assert_eq!(
        session["error"], "The execution could not complete.",
        "{session}"
    );
}
