//! Deleting a Session against a Runtime that never answers: the delete answers promptly, the
//! Session is gone from the API at once, and the release is sent again when a Runtime
//! connects, until one confirms it (then nothing of the Session is left in the store).

use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{PreparationState, PreparationStatus, TurnOutcome};

/// The next `execution_release` Core sends on the peer's link (other frames are skipped).
async fn next_release(peer: &mut Peer) -> String {
    loop {
        if let CoreToRuntime::ExecutionRelease(r) = peer.next_frame().await.message {
            return r.session_id;
        }
    }
}

async fn released(peer: &Peer, id: &str) {
    let status = PreparationStatus {
        session_id: id.to_owned(),
        state: PreparationState::Released,
        error_code: None,
        error: None,
    };
    peer.to_core
        .send(Envelope::new(Some(id.to_owned()), status.into()))
        .await
        .unwrap();
}

/// A Session whose one Turn the peer played to its end.
async fn idle_session(peer: &mut Peer) -> String {
    let (id, run_id, _) = peer.started_turn().await;
    peer.done(&run_id, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
    id
}

#[tokio::test]
async fn a_delete_against_a_silent_runtime_answers_promptly_and_finishes_when_one_confirms() {
    let mut peer = Peer::start().await;
    let id = idle_session(&mut peer).await;

    let started = Instant::now();
    let deleting = {
        let base = peer.base.clone();
        let id = id.clone();
        tokio::spawn(async move {
            support::api(&base, "DELETE", &format!("/agents/sessions/{id}"), None).await
        })
    };
    // The Runtime hears of it and never answers.
    assert_eq!(next_release(&mut peer).await, id);
    let (status, body) = deleting.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"id": id, "object": "agent.session.deleted", "deleted": true})
    );
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the delete waited {:?}",
        started.elapsed()
    );
    let (status, _) = peer
        .request("GET", &format!("/agents/sessions/{id}"), None)
        .await;
    assert_eq!(status, 404);
    let store = peer.state.engine.store.clone();
    let pending = store.pending_deletions().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].session_id, id);

    // The Runtime comes back (a new link): it is told again, and its answer ends the deletion.
    peer.disconnect();
    peer.reconnect();
    assert_eq!(next_release(&mut peer).await, id);
    released(&peer, &id).await;
    peer.until(|| async { store.pending_deletions().await.unwrap().is_empty() })
        .await;
}

#[tokio::test]
async fn a_confirmed_delete_leaves_no_deletion_record() {
    let mut peer = Peer::start().await;
    let id = idle_session(&mut peer).await;
    let deleting = {
        let base = peer.base.clone();
        let id = id.clone();
        tokio::spawn(async move {
            support::api(&base, "DELETE", &format!("/agents/sessions/{id}"), None).await
        })
    };
    assert_eq!(next_release(&mut peer).await, id);
    released(&peer, &id).await;
    let (status, body) = deleting.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"id": id, "object": "agent.session.deleted", "deleted": true})
    );
    assert!(
        peer.state
            .engine
            .store
            .pending_deletions()
            .await
            .unwrap()
            .is_empty()
    );
}
