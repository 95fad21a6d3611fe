//! A harness a Runtime is installing: Sessions that select it are admitted and their Turn waits
//! in `queued`; when the install ends the Turn starts, or fails when the install failed, and from
//! then on Session create names the harness, the reason and the command to retry. `/readyz`
//! shows each harness's state throughout.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::HarnessState;
use tokio::sync::mpsc::error::TryRecvError;

const REASON: &str =
    "npm install @openai/codex@0.171.0 failed (exit status: 1): npm error code ECONNREFUSED";

async fn installing_peer() -> Peer {
    let (state, base, dir) = Peer::core_only().await;
    let peer = Peer::attach(state, base, dir);
    peer.heartbeat_state(HarnessState::Installing).await;
    peer.until(|| async { peer.readyz().await.1["harnesses"][0]["state"] == "installing" })
        .await;
    peer
}

fn readyz_body(status: &str, codex: &str) -> Value {
    json!({
        "status": status,
        "harnesses": [
            {"harness": "codex", "pinned_version": "0.171.0", "state": codex},
            {"harness": "claude_code", "pinned_version": "2.1.332", "state": "missing"},
            {"harness": "minimax_code", "pinned_version": "0.4.12", "state": "missing"},
        ]
    })
}

async fn create(peer: &Peer) -> (u16, Value) {
    peer.request(
        "POST",
        "/agents/sessions",
        Some(json!({"environment": {"type": "none"}, "agent": {"model": "m"}, "input": "hi"})),
    )
    .await
}

async fn turn_status(peer: &Peer, id: &str) -> Value {
    let (_, turns) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns"), None)
        .await;
    turns["data"][0]["status"].clone()
}

#[tokio::test]
async fn a_session_waits_for_an_install_and_starts_when_it_ends() {
    let mut peer = installing_peer().await;
    assert_eq!(
        peer.readyz().await,
        (503, readyz_body("not_ready", "installing"))
    );

    let (status, session) = create(&peer).await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    assert_eq!(turn_status(&peer, &id).await, "queued");
    // Nothing was sent to the Runtime while it installs.
    assert!(matches!(
        peer.from_core.try_recv(),
        Err(TryRecvError::Empty)
    ));

    // The install ended: the Runtime's fresh heartbeat starts the queued Turn.
    peer.heartbeat().await;
    let CoreToRuntime::ExecutionPrepare(prepare) = peer.next_frame().await.message else {
        panic!("expected execution_prepare once the harness is available")
    };
    assert_eq!(prepare.session_id, id);
    assert_eq!(
        peer.readyz().await,
        (200, readyz_body("ready", "available"))
    );
}

#[tokio::test]
async fn a_failed_install_fails_the_queued_turn_and_refuses_new_sessions() {
    let peer = installing_peer().await;
    let (status, session) = create(&peer).await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    assert_eq!(turn_status(&peer, &id).await, "queued");

    peer.heartbeat_state(HarnessState::Failed {
        reason: REASON.into(),
    })
    .await;
    let session = peer.until_status(&id, "failed").await;
    assert_eq!(session["error"], "The execution could not complete.");
    let (_, turns) = peer
        .request("GET", &format!("/agents/sessions/{id}/turns"), None)
        .await;
    assert_eq!(turns["data"][0]["status"], "failed");
    assert_eq!(
        turns["data"][0]["error"],
        json!({"code": "internal_error", "message": "The execution could not complete."})
    );

    let (status, body) = create(&peer).await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        json!({"error": {
            "type": "invalid_request_error",
            "code": "unsupported_or_invalid_configuration",
            "param": null,
            "message": format!("No connected Runtime can run the codex harness: {REASON}. Retry the install on the Runtime (`switchboard harness install codex`) and try again."),
        }})
    );
    assert_eq!(
        peer.readyz().await,
        (503, readyz_body("not_ready", &format!("failed: {REASON}")))
    );
}

#[tokio::test]
async fn minimax_code_without_a_runtime_that_runs_it_names_the_install_command() {
    let peer = Peer::start().await;
    let (status, body) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(json!({
                "environment": {"type": "none"},
                "agent": {"model": "m"},
                "input": "hi",
                "x_agents_core": {
                    "harness": "minimax_code",
                    "model_provider": {
                        "protocol": "anthropic", "base_url": "http://127.0.0.1:9", "api_key": "k",
                        "context_window": 100000, "max_output_tokens": 1000,
                    },
                },
            })),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"]["message"],
        // The install command explains how to point a Runtime at an installed `mcode`.
        "No connected Runtime can run the minimax_code harness right now. Install it on a Runtime (`switchboard harness install minimax_code`) and try again."
    );
    assert_eq!(
        body["error"]["code"],
        "unsupported_or_invalid_configuration"
    );
}
