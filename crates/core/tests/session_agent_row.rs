//! A Session's agent is stored once, apart from its row: the document Core rewrites on every
//! change to the Session leaves it out. A row written before the agent was kept apart (the agent
//! inside the document) still loads, runs, and moves its agent out of the document.

use crate::support;

use serde_json::{Value, json};
use support::Peer;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::messages::TurnOutcome;
use switchboard_store::{SessionRecord, SessionWrite};

/// The stored row of Session `id`.
async fn row(peer: &Peer, id: &str) -> SessionRecord {
    let project = peer.project().await;
    peer.state
        .store
        .get_session(&project, id)
        .await
        .unwrap()
        .expect("the Session's row")
}

/// The row's document and agent, parsed.
fn parts(rec: &SessionRecord) -> (serde_json::Map<String, Value>, Option<Value>) {
    let doc = serde_json::from_str(&rec.doc).unwrap();
    let agent = rec
        .agent
        .as_deref()
        .map(|a| serde_json::from_str(a).unwrap());
    (doc, agent)
}

/// Plays the Runtime through Session `id`'s first Turn: it is prepared with the agent's
/// instructions, started, and completed.
async fn finish_turn(peer: &mut Peer, id: &str) {
    let CoreToRuntime::ExecutionPrepare(prepare) = peer.next_frame().await.message else {
        panic!("expected execution_prepare first")
    };
    assert_eq!(prepare.session_id, id);
    assert_eq!(
        prepare.configuration.instructions.as_deref(),
        Some("Say \"hi\".")
    );
    peer.ready(id).await;
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start after ready")
    };
    peer.done(&start.run_id, TurnOutcome::Completed).await;
    peer.until_status(id, "idle").await;
}

#[tokio::test]
async fn the_agent_is_written_with_the_row_once_and_never_in_the_document() {
    let mut peer = Peer::start().await;
    let (id, run, turn) = peer.started_turn().await;
    let created = peer.session(&id).await;
    peer.call(&id, &run, "call_1").await;
    peer.admitted_result(&id, &turn, "call_1", "{}").await;
    peer.done(&run, TurnOutcome::Completed).await;
    let idle = peer.until_status(&id, "idle").await;

    let (doc, agent) = parts(&row(&peer, &id).await);
    assert!(
        !doc.contains_key("agent"),
        "the document carries no agent: {doc:?}"
    );
    let agent = agent.expect("the agent is stored apart");
    assert_eq!(agent["model"], "m");
    assert_eq!(agent["tools"][0]["name"], "lookup");
    // The public object still shows it, before and after the Turn's writes.
    assert_eq!(idle["agent"], created["agent"]);
    assert_eq!(idle["agent"]["tools"][0]["name"], "lookup", "{idle}");

    // A Core that reads the row from the store shows the same Session.
    let peer = peer.restart_core().await;
    assert_eq!(peer.session(&id).await, idle);
}

#[tokio::test]
async fn a_row_with_its_agent_in_the_document_loads_runs_and_moves_it_out() {
    let mut peer = Peer::start().await;
    let (status, model) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(json!({
                "environment": {"type": "none"},
                "agent": {"model": "m", "instructions": "Say \"hi\".", "tools": [{
                    "type": "function", "name": "lookup", "description": "d",
                    "parameters": {"type": "object", "properties": {}}
                }]},
                "input": "first",
            })),
        )
        .await;
    assert_eq!(status, 201, "{model}");
    let model_id = model["id"].as_str().unwrap();
    finish_turn(&mut peer, model_id).await;
    let model = peer.session(model_id).await;

    // The row as a Core from before wrote it: the agent inside the document, none apart.
    // Another Session ID, so no Core holds it in memory.
    let rec = row(&peer, model_id).await;
    let (mut doc, agent) = parts(&rec);
    doc.insert("agent".into(), agent.clone().unwrap());
    let id = switchboard_wire::ids::new_id(switchboard_wire::ids::IdKind::Session);
    let legacy = SessionRecord {
        id: id.clone(),
        doc: serde_json::to_string(&doc).unwrap(),
        agent: None,
        ..rec
    };
    peer.state
        .store
        .write_session(SessionWrite {
            session: Some(legacy),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut expected = model.clone();
    expected["id"] = json!(id);
    assert_eq!(peer.session(&id).await, expected);

    // A Turn on it: the first write moves the agent out of the document.
    let (status, body) = peer.message(&id, "go").await;
    assert_eq!(status, 202, "{body}");
    finish_turn(&mut peer, &id).await;
    let idle = peer.until_status(&id, "idle").await;
    assert_eq!(idle["agent"], model["agent"]);

    let (doc, stored) = parts(&row(&peer, &id).await);
    assert!(!doc.contains_key("agent"), "{doc:?}");
    assert_eq!(stored, agent);
    let peer = peer.restart_core().await;
    assert_eq!(peer.session(&id).await, idle);
}
