//! An unconfirmed receipt (the wait for the native record ran out) keeps the required action:
//! an identical retry is still accepted and nothing is resent, a later native application
//! publishes the output Item, and otherwise the action leaves only when the Turn settles.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::{
    Done, FunctionCall, FunctionResult, FunctionResultApplied, InteractionDecisionAck, TurnOutcome,
};

const UNCONFIRMED: &str = "function_result_unconfirmed";

fn action_ids(session: &Value) -> Vec<String> {
    session["required_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["call_id"].as_str().unwrap().to_owned())
        .collect()
}

async fn output_items(peer: &Peer, id: &str) -> Vec<Value> {
    let (_, items) = peer
        .request(
            "GET",
            &format!("/agents/sessions/{id}/items?order=asc"),
            None,
        )
        .await;
    items["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .cloned()
        .collect()
}

/// A call answered, its `function_result` taken, and its receipt reported unconfirmed. A second
/// call made after the receipt shows the receipt was handled (frames apply in order).
async fn unconfirmed(peer: &mut Peer) -> (String, String, String) {
    let (id, run, turn) = peer.started_turn().await;
    peer.call(&id, &run, "call_a").await;
    assert_eq!(peer.tool_result(&id, &turn, "call_a", "42").await.0, 202);
    let CoreToRuntime::FunctionResult(result) = peer.next_frame().await.message else {
        panic!("expected function_result")
    };
    let ack = InteractionDecisionAck {
        delivery_id: result.delivery_id,
        applied: false,
        error_code: Some(UNCONFIRMED.into()),
        error: Some("no native record within 10 s".into()),
    };
    peer.send(&run, ack.into()).await;
    let call = FunctionCall {
        call_id: "call_b".into(),
        name: "lookup".into(),
        arguments: "{}".into(),
    };
    peer.send(&run, call.into()).await;
    peer.until(|| async { action_ids(&peer.session(&id).await).len() == 2 })
        .await;
    (id, run, turn)
}

#[tokio::test]
async fn the_action_stays_until_a_later_native_application() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = unconfirmed(&mut peer).await;
    let session = peer.session(&id).await;
    assert_eq!(action_ids(&session), ["call_a", "call_b"]);
    assert!(output_items(&peer, &id).await.is_empty());

    // An identical retry is still accepted and not resent: the next frame is call_b's result.
    assert_eq!(peer.tool_result(&id, &turn, "call_a", "42").await.0, 202);
    assert_eq!(peer.tool_result(&id, &turn, "call_b", "7").await.0, 202);
    let CoreToRuntime::FunctionResult(FunctionResult { call_id, .. }) =
        peer.next_frame().await.message
    else {
        panic!("expected function_result")
    };
    assert_eq!(call_id, "call_b");
    let (status, body) = peer.tool_result(&id, &turn, "call_a", "other").await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"]["message"],
        "The tool call already has a different result."
    );

    // The harness applies it after all.
    let late = FunctionResultApplied {
        call_id: "call_a".into(),
    };
    peer.send(&run, late.into()).await;
    peer.until(|| async { action_ids(&peer.session(&id).await) == ["call_b"] })
        .await;
    let outputs = output_items(&peer, &id).await;
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert_eq!(outputs[0]["call_id"], "call_a");
    assert_eq!(outputs[0]["output"], "42");
}

#[tokio::test]
async fn without_an_application_the_action_leaves_when_the_turn_settles() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = unconfirmed(&mut peer).await;
    let done = Done {
        outcome: TurnOutcome::Completed,
        usage: None,
    };
    peer.send(&run, done.into()).await;
    let session = peer.until_status(&id, "idle").await;
    assert_eq!(session["required_actions"], json!([]));
    assert!(output_items(&peer, &id).await.is_empty());
    // The admitted result stays saved: its identical retry is still accepted.
    assert_eq!(peer.tool_result(&id, &turn, "call_a", "42").await.0, 202);
}
