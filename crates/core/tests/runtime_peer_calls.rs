//! Function calls against a scripted Runtime peer: abandonment, receipts and refusals.

use crate::support;

use serde_json::json;
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::{CallAbandoned, InteractionDecisionAck, TurnOutcome};

const CANNOT_ACCEPT: &str = "The Turn cannot accept this input in its current state.";

#[tokio::test]
async fn an_abandoned_call_stops_being_required_and_refuses_a_later_result() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_a").await;

    peer.send(
        &run,
        CallAbandoned {
            call_id: "call_a".into(),
        }
        .into(),
    )
    .await;
    let session = peer.until_status(&id, "in_progress").await;
    assert_eq!(session["required_actions"], json!([]));

    let (status, body) = peer.tool_result(&id, &turn, "call_a", "late").await;
    assert_eq!(status, 409);
    assert_eq!(body["error"]["message"], CANNOT_ACCEPT);
    assert_eq!(body["error"]["type"], "conflict_error");

    peer.done(&run, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
}

#[tokio::test]
async fn the_output_item_appears_only_once_the_harness_applied_the_result() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_b").await;

    let result = peer.admitted_result(&id, &turn, "call_b", "42").await;
    assert_eq!(result.call_id, "call_b");
    // Admitted, not applied: still listed until native application, no output Item yet.
    let session = peer.session(&id).await;
    assert_eq!(session["status"], "in_progress");
    assert_eq!(session["required_actions"][0]["call_id"], "call_b");
    let (_, items) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/items?order=asc"),
            None,
        )
        .await;
    assert!(
        items["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["type"] != "function_call_output")
    );

    let ack = InteractionDecisionAck {
        delivery_id: result.delivery_id,
        applied: true,
        error_code: None,
        error: None,
    };
    peer.send(&run, ack.into()).await;
    peer.until(|| async { peer.session(&id).await["required_actions"] == json!([]) })
        .await;
    let (_, items) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/items?order=asc"),
            None,
        )
        .await;
    let output = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("the output Item")
        .clone();
    assert_eq!(output["call_id"], "call_b");
    assert_eq!(output["output"], "42");
    assert_eq!(output["error"], json!(null));
}

#[tokio::test]
async fn a_refused_result_fails_the_turn() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_c").await;
    assert_eq!(peer.tool_result(&id, &turn, "call_c", "x").await.0, 202);
    let CoreToRuntime::FunctionResult(result) = peer.next_frame().await.message else {
        panic!("expected function_result")
    };
    let ack = InteractionDecisionAck {
        delivery_id: result.delivery_id,
        applied: false,
        error_code: Some("invalid_result".into()),
        error: Some("the harness rejected the content".into()),
    };
    peer.send(&run, ack.into()).await;
    // Core stops the native Turn, then settles it as failed.
    assert!(matches!(
        peer.next_frame().await.message,
        CoreToRuntime::PromptCancel(_)
    ));
    peer.done(&run, TurnOutcome::Cancelled).await;
    let session = peer.until_status(&id, "failed").await;
    assert_eq!(session["error"], "The execution could not complete.");
    let (_, t) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns/{turn}"), None)
        .await;
    assert_eq!(t["status"], "failed");
    assert_eq!(
        t["error"],
        json!({"code": "internal_error", "message": "The execution could not complete."})
    );
}
