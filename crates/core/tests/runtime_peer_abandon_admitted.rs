//! An abandonment that arrives after a result was admitted but before the harness applied it
//! abandons the call: no receipt, the action leaves, the Turn goes on (back to `in_progress`
//! once no action is left) instead of failing. The admitted result stays saved without a
//! public output Item; its identical retry is accepted, any other result gets the 409 of a
//! result for an abandoned call.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::{CallAbandoned, Done, InteractionDecisionAck, TurnOutcome};

const CANNOT_ACCEPT: &str = "The Turn cannot accept this input in its current state.";

/// A Turn whose call has an admitted result on its way to the Runtime: (id, run, turn, delivery).
async fn admitted(peer: &mut Peer) -> (String, String, String, String) {
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_a").await;
    assert_eq!(peer.tool_result(&id, &turn, "call_a", "42").await.0, 202);
    let CoreToRuntime::FunctionResult(result) = peer.next_frame().await.message else {
        panic!("expected function_result")
    };
    (id, run, turn, result.delivery_id)
}

async fn items(peer: &Peer, id: &str) -> Vec<Value> {
    let (_, items) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/items?order=asc"),
            None,
        )
        .await;
    items["data"].as_array().unwrap().clone()
}

/// After the abandonment: retries, then a completed Turn with no output Item.
async fn the_turn_goes_on(peer: &Peer, id: &str, run: &str, turn: &str) {
    // Admitted results already read `in_progress`; the action leaving is the change.
    peer.until(|| async { peer.session(id).await["required_actions"] == json!([]) })
        .await;
    assert_eq!(peer.session(id).await["status"], "in_progress");

    assert_eq!(peer.tool_result(id, turn, "call_a", "42").await.0, 202);
    let (status, body) = peer.tool_result(id, turn, "call_a", "other").await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        json!({"message": CANNOT_ACCEPT, "type": "conflict_error", "param": null, "code": "conflict_error"})
    );

    let done = Done {
        outcome: TurnOutcome::Completed,
        usage: None,
    };
    peer.send(run, done.into()).await;
    let session = peer.until_status(id, "idle").await;
    assert_eq!(session["error"], json!(null));
    let (_, t) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns/{turn}"), None)
        .await;
    assert_eq!(t["status"], "completed");
    assert!(
        items(peer, id)
            .await
            .iter()
            .all(|i| i["type"] != "function_call_output")
    );
    // Still saved after the Turn: the identical retry is accepted.
    assert_eq!(peer.tool_result(id, turn, "call_a", "42").await.0, 202);
}

#[tokio::test]
async fn call_abandoned_after_admission_abandons_the_call() {
    let mut peer = Peer::start().await;
    let (id, run, turn, delivery) = admitted(&mut peer).await;
    let abandoned = CallAbandoned {
        call_id: "call_a".into(),
    };
    peer.send(&run, abandoned.into()).await;
    // The adapter then refuses the result it could no longer deliver: not a Turn failure.
    let refusal = InteractionDecisionAck {
        delivery_id: delivery,
        applied: false,
        error_code: Some("call_abandoned".into()),
        error: Some("The harness abandoned the call.".into()),
    };
    peer.send(&run, refusal.into()).await;
    the_turn_goes_on(&peer, &id, &run, &turn).await;
}

#[tokio::test]
async fn a_call_abandoned_refusal_alone_abandons_the_call() {
    let mut peer = Peer::start().await;
    let (id, run, turn, delivery) = admitted(&mut peer).await;
    // The refusal overtook the abandonment frame (they travel on different Runtime tasks).
    let refusal = InteractionDecisionAck {
        delivery_id: delivery,
        applied: false,
        error_code: Some("call_abandoned".into()),
        error: Some("The harness abandoned the call.".into()),
    };
    peer.send(&run, refusal.into()).await;
    let abandoned = CallAbandoned {
        call_id: "call_a".into(),
    };
    peer.send(&run, abandoned.into()).await;
    the_turn_goes_on(&peer, &id, &run, &turn).await;
}
