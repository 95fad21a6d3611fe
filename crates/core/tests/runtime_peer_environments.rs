//! Environments against a scripted Runtime peer: self-hosted routing, the
//! `environment_connection` action, reservations and their deadline, environment events, the
//! managed configuration, workspace file frames, the failure sequence and delete.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use support::Peer;
use switchboard_core::session::hub::Subscription;
use switchboard_protocol::CoreToRuntime;
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{PreparationState, PreparationStatus, TurnOutcome};
use switchboard_protocol::workspace::{
    NetworkAccess, WorkspaceEntry, WorkspacePlacement, WorkspaceResult,
};

fn self_hosted_body(dir: &str, input: Option<&str>) -> Value {
    let mut body = json!({
        "environment": {"type": "self_hosted", "workspace_directory": dir},
        "agent": {"model": "m"},
    });
    if let Some(input) = input {
        body["input"] = json!(input);
    }
    body
}

fn message(text: &str) -> Value {
    json!({"events": [{"type": "agent.session.input.message", "input": text}]})
}

/// Every event published so far, in order (kind, JSON).
fn drain(rx: &mut Subscription) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while let Some(p) = rx.try_next() {
        out.push((p.kind.to_string(), serde_json::from_str(&p.json).unwrap()));
    }
    out
}

fn kinds(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(k, _)| k.as_str()).collect()
}

#[tokio::test]
async fn self_hosted_input_waits_for_its_environment_and_runs_on_its_runtime() {
    let (state, base, dir) = Peer::core_only().await;
    // A deployment Runtime is connected too: it must never receive the Session.
    let mut deployment = Peer::attach(state.clone(), base.clone(), tempfile::tempdir().unwrap());
    deployment.heartbeat().await;
    let (status, session) = deployment
        .request(
            "POST",
            "/agents/sessions",
            Some(self_hosted_body("/home/me/project", None)),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let env_id = session["environment"]["id"].as_str().unwrap().to_owned();
    let mut rx = state.engine.hub.subscribe(&id);

    // Input while the Environment is offline: held, and the Session requires the connection.
    let poster = {
        let peer_base = base.clone();
        let id = id.clone();
        tokio::spawn(async move { post(&peer_base, &id, message("hello")).await })
    };
    let waiting = deployment.until_status(&id, "requires_action").await;
    assert_eq!(
        waiting["required_actions"],
        json!([{"environment_id": env_id, "type": "environment_connection"}])
    );
    assert!(!poster.is_finished());

    // Its enrolled Runtime connects: the action clears (connection is not readiness).
    let mut enrolled = Peer::attach_environment(state.clone(), base.clone(), dir, &env_id).await;
    let (status, _) = poster.await.unwrap();
    assert_eq!(status, 202);
    let session = deployment.session(&id).await;
    assert_eq!(session["required_actions"], json!([]));
    assert_eq!(session["status"], "in_progress");
    enrolled.heartbeat().await;

    let CoreToRuntime::ExecutionPrepare(prepare) = enrolled.next_frame().await.message else {
        panic!("expected execution_prepare on the enrolled Runtime")
    };
    let workspace = prepare.configuration.workspace.expect("a workspace");
    assert_eq!(workspace.placement, WorkspacePlacement::SelfHosted);
    assert_eq!(workspace.directory, "/home/me/project");
    assert_eq!(workspace.environment_id, env_id);
    enrolled.ready(&id).await;
    let CoreToRuntime::ExecutionStart(start) = enrolled.next_frame().await.message else {
        panic!("expected execution_start")
    };
    enrolled.done(&start.run_id, TurnOutcome::Completed).await;
    deployment.until_status(&id, "idle").await;
    assert!(
        deployment.from_core.try_recv().is_err(),
        "the deployment Runtime got a frame"
    );

    let events = drain(&mut rx);
    let env_events: Vec<&str> = kinds(&events)
        .into_iter()
        .filter(|k| {
            k.starts_with("agent.session.environment.") || k.starts_with("agent.session.requires")
        })
        .collect();
    assert_eq!(
        env_events,
        [
            "agent.session.requires_action",
            "agent.session.environment.pending",
            "agent.session.environment.connected",
            "agent.session.environment.ready",
        ]
    );
    let (_, connected) = events
        .iter()
        .find(|(k, _)| k == "agent.session.environment.connected")
        .unwrap();
    assert_eq!(connected["session_id"], id);
    assert_eq!(
        connected["environment"],
        json!({"id": env_id, "type": "self_hosted", "status": "connected"})
    );
    assert_eq!(connected["turn_id"], start.turn_id);

    // Losing the Runtime: `disconnected`; the next input waits for the reconnect again.
    enrolled.disconnect();
    let path = format!("/agents/environments/{env_id}");
    deployment
        .until(|| async {
            deployment.request("GET", &path, None).await.1["status"] == "disconnected"
        })
        .await;
    let events = drain(&mut rx);
    assert_eq!(kinds(&events), ["agent.session.environment.disconnected"]);

    // The next input waits for the reconnect, and only that Environment's Runtime gets it.
    let mut stranger = Peer::attach_environment(
        state.clone(),
        base.clone(),
        tempfile::tempdir().unwrap(),
        "env_00000000000000000000000000000001",
    )
    .await;
    stranger.heartbeat().await;
    let poster = {
        let (base, id) = (base.clone(), id.clone());
        tokio::spawn(async move { post(&base, &id, message("again")).await })
    };
    deployment.until_status(&id, "requires_action").await;
    let mut enrolled = Peer::attach_environment(
        state.clone(),
        base.clone(),
        tempfile::tempdir().unwrap(),
        &env_id,
    )
    .await;
    assert_eq!(poster.await.unwrap().0, 202);
    enrolled.heartbeat().await;
    let CoreToRuntime::ExecutionPrepare(_) = enrolled.next_frame().await.message else {
        panic!("expected execution_prepare on the reconnected Runtime")
    };
    assert!(
        stranger.from_core.try_recv().is_err(),
        "another Environment's Runtime got a frame"
    );
    assert!(
        deployment.from_core.try_recv().is_err(),
        "the deployment Runtime got a frame"
    );
}

async fn post(base: &str, id: &str, body: Value) -> (u16, Value) {
    let path = format!("/agents/sessions/{id}/events");
    support::api(base, "POST", &path, Some(body)).await
}

#[tokio::test]
async fn reservations_expire_and_cancel_with_their_exact_409s() {
    let (state, base, dir) = Peer::core_only_with(Duration::from_millis(300)).await;
    let peer = Peer::attach(state.clone(), base.clone(), dir);
    // Initial input that expires fails the Session.
    let (status, session) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(self_hosted_body("/w", Some("hi"))),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(session["status"], "requires_action");
    let id = session["id"].as_str().unwrap().to_owned();
    peer.until_status(&id, "failed").await;

    // Later input that expires: 409, and the Session is idle again.
    let (status, body) = post(&base, &id, message("again")).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        json!({
            "message": "The environment input deadline elapsed before admission.",
            "type": "conflict_error", "param": null, "code": "environment_input_expired",
        })
    );
    assert_eq!(peer.session(&id).await["status"], "idle");
}

#[tokio::test]
async fn a_cancelled_reservation_answers_its_input_with_409_and_more_input_waits_its_turn() {
    let (state, base, dir) = Peer::core_only().await;
    let peer = Peer::attach(state.clone(), base.clone(), dir);
    let (_, session) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(self_hosted_body("/w", None)),
        )
        .await;
    let id = session["id"].as_str().unwrap().to_owned();
    let held = {
        let (base, id) = (base.clone(), id.clone());
        tokio::spawn(async move { post(&base, &id, message("one")).await })
    };
    peer.until_status(&id, "requires_action").await;
    let (status, body) = post(&base, &id, message("two")).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"]["message"],
        "Earlier input to this Session is still pending."
    );
    let (status, _) = post(
        &base,
        &id,
        json!({"events": [{"type": "agent.session.input.cancel"}]}),
    )
    .await;
    assert_eq!(status, 202);
    let (status, body) = held.await.unwrap();
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        json!({
            "message": "The environment input was cancelled before admission.",
            "type": "conflict_error", "param": null, "code": "environment_input_cancelled",
        })
    );
    let session = peer.until_status(&id, "idle").await;
    assert_eq!(session["required_actions"], json!([]));
}

fn managed_body() -> Value {
    json!({
        "environment": {
            "type": "openai_hosted",
            "files": [{"type": "inline", "path": "/workspace/a.txt", "data": "aGVsbG8="}],
            "setup_commands": [{"command": "make setup"}],
            "network": {"access": "disabled"},
            "env": {"API_TOKEN": "tok-123"},
        },
        "agent": {"model": "m"},
        "input": "go",
    })
}

#[tokio::test]
async fn managed_sessions_carry_their_workspace_and_fail_with_the_environment_sequence() {
    let mut peer = Peer::start().await;
    let (status, session) = peer
        .request("POST", "/agents/sessions", Some(managed_body()))
        .await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let env_id = session["environment"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        session["environment"],
        json!({
            "type": "openai_hosted", "id": env_id, "capability_directories": [],
            "files": [{
                "id": session["environment"]["files"][0]["id"], "type": "inline",
                "path": "/workspace/a.txt", "size_bytes": 5,
            }],
            "network": {"access": "disabled", "allowed_domains": []},
            "packages": {"npm": [], "python": [], "system": []},
            "plugins": [], "skills": [],
        })
    );
    assert!(
        !session.to_string().contains("tok-123") && !session.to_string().contains("make setup")
    );
    let mut rx = peer.state.engine.hub.subscribe(&id);

    let CoreToRuntime::ExecutionPrepare(prepare) = peer.next_frame().await.message else {
        panic!("expected execution_prepare")
    };
    let w = prepare.configuration.workspace.expect("a workspace");
    assert_eq!(w.placement, WorkspacePlacement::Managed);
    assert_eq!(w.directory, "/workspace");
    assert_eq!(w.network, NetworkAccess::Disabled);
    assert_eq!(w.env["API_TOKEN"], "tok-123");
    assert_eq!(w.files[0].path, "/workspace/a.txt");
    assert_eq!(w.setup_commands[0].command, "make setup");
    // The stored Environment never holds the value open.
    let rec = peer
        .state
        .store
        .get_environment(&peer.project().await, &env_id)
        .await
        .unwrap()
        .unwrap();
    assert!(!rec.doc.contains("tok-123"));

    let failed = PreparationStatus {
        session_id: id.clone(),
        state: PreparationState::Failed,
        error_code: Some("sandbox_error".into()),
        error: Some("setup command 1 exited with status 2".into()),
    };
    peer.to_core
        .send(Envelope::new(Some(id.clone()), failed.into()))
        .await
        .unwrap();
    peer.until_status(&id, "failed").await;
    let events = drain(&mut rx);
    let order: Vec<&str> = kinds(&events)
        .into_iter()
        .filter(|k| {
            matches!(
                *k,
                "agent.session.environment.failed" | "error" | "agent.session.failed"
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            "agent.session.environment.failed",
            "error",
            "agent.session.failed"
        ]
    );
    let (_, error) = events.iter().find(|(k, _)| k == "error").unwrap();
    assert_eq!(error["error"]["type"], "environment_error");
    assert_eq!(error["error"]["code"], "sandbox_error");

    let (status, body) = post(&peer.base, &id, message("again")).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        json!({
            "message": "the hosted environment failed to provision",
            "type": "conflict_error", "param": null, "code": "conflict_error",
        })
    );
}

#[tokio::test]
async fn environment_files_go_to_the_hosting_runtime_and_delete_removes_the_workspace() {
    let mut peer = Peer::start().await;
    let (status, session) = peer
        .request("POST", "/agents/sessions", Some(managed_body()))
        .await;
    assert_eq!(status, 201);
    let id = session["id"].as_str().unwrap().to_owned();
    let env_id = session["environment"]["id"].as_str().unwrap().to_owned();
    let CoreToRuntime::ExecutionPrepare(_) = peer.next_frame().await.message else {
        panic!("expected execution_prepare")
    };
    peer.ready(&id).await;
    let CoreToRuntime::ExecutionStart(start) = peer.next_frame().await.message else {
        panic!("expected execution_start")
    };
    peer.done(&start.run_id, TurnOutcome::Completed).await;
    peer.until_status(&id, "idle").await;
    let (_, info) = peer
        .request("GET", &format!("/agents/environments/{env_id}"), None)
        .await;
    assert_eq!(info["status"], "ready");

    // files.list: a workspace_list frame answered by workspace_result.
    let lister = {
        let (base, env_id) = (peer.base.clone(), env_id.clone());
        tokio::spawn(async move {
            get(
                &base,
                &format!("/agents/environments/{env_id}/files?order=asc&limit=1"),
            )
            .await
        })
    };
    let frame = peer.next_frame().await;
    let frame_id = frame.id.clone().unwrap();
    assert!(frame_id.starts_with("wsreq_"));
    let CoreToRuntime::WorkspaceList(list) = frame.message else {
        panic!("expected workspace_list")
    };
    assert_eq!(list.environment_id, env_id);
    answer(
        &peer,
        &frame_id,
        &env_id,
        &[("/workspace/b.txt", 2), ("/workspace/a.txt", 5)],
        None,
    )
    .await;
    let (status, page) = lister.await.unwrap();
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["object"], "list");
    assert_eq!(
        page["data"],
        json!([{"object": "agent.environment.file", "environment_id": env_id, "path": "/workspace/a.txt", "size_bytes": 5}])
    );
    assert!(page["next"].is_string());

    // files.create: a path the Runtime refuses is a 400 naming `path`.
    let writer = {
        let (base, env_id) = (peer.base.clone(), env_id.clone());
        tokio::spawn(async move {
            post_to(
                &base,
                &format!("/agents/environments/{env_id}/files"),
                json!({"type": "inline", "path": "/workspace/link/x", "data": "aGk="}),
            )
            .await
        })
    };
    let frame = peer.next_frame().await;
    let CoreToRuntime::WorkspaceWrite(write) = &frame.message else {
        panic!("expected workspace_write")
    };
    assert_eq!(write.file.path, "/workspace/link/x");
    answer(
        &peer,
        frame.id.as_deref().unwrap(),
        &env_id,
        &[],
        Some("invalid_path"),
    )
    .await;
    let (status, body) = writer.await.unwrap();
    assert_eq!(status, 400);
    assert_eq!(body["error"]["param"], "path");

    // Deleting the Session releases it, then removes its Environment and the workspace, and
    // answers once the Runtime confirmed both.
    let deleting = {
        let (base, path) = (peer.base.clone(), format!("/agents/sessions/{id}"));
        tokio::spawn(async move { support::api(&base, "DELETE", &path, None).await })
    };
    let mut released = false;
    loop {
        let frame = peer.next_frame().await;
        match frame.message {
            CoreToRuntime::ExecutionRelease(release) => {
                assert_eq!(release.session_id, id);
                released = true;
                let status = PreparationStatus {
                    session_id: id.clone(),
                    state: PreparationState::Released,
                    error_code: None,
                    error: None,
                };
                peer.to_core
                    .send(Envelope::new(Some(id.clone()), status.into()))
                    .await
                    .unwrap();
            }
            CoreToRuntime::WorkspaceRemove(remove) => {
                assert!(
                    released,
                    "the workspace went before the Session was released"
                );
                assert_eq!(remove.environment_id, env_id);
                answer(&peer, frame.id.as_deref().unwrap(), &env_id, &[], None).await;
                break;
            }
            _ => {}
        }
    }
    let (status, _) = deleting.await.unwrap();
    assert_eq!(status, 200);
    let (status, _) = peer
        .request("GET", &format!("/agents/environments/{env_id}"), None)
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn workspace_requests_without_a_runtime_are_503() {
    let (state, base, dir) = Peer::core_only().await;
    let peer =
        Peer::attach_environment(state, base, dir, "env_00000000000000000000000000000001").await;
    let (_, env) = peer
        .request(
            "POST",
            "/agents/environments",
            Some(json!({"environment": {"type": "openai_hosted"}})),
        )
        .await;
    let (status, body) = peer
        .request(
            "GET",
            &format!("/agents/environments/{}/files", env["id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(status, 503);
    assert_eq!(
        body["error"],
        json!({
            "message": "Execution is not available on this service.",
            "type": "server_error", "param": null, "code": "execution_unavailable",
        })
    );
}

async fn answer(
    peer: &Peer,
    frame_id: &str,
    env_id: &str,
    files: &[(&str, u64)],
    error_code: Option<&str>,
) {
    let result = WorkspaceResult {
        environment_id: env_id.to_owned(),
        files: files
            .iter()
            .map(|(p, n)| WorkspaceEntry {
                path: (*p).into(),
                size_bytes: *n,
            })
            .collect(),
        error_code: error_code.map(str::to_owned),
        error: error_code.map(|_| "the path leaves the workspace".to_owned()),
    };
    peer.to_core
        .send(Envelope::new(
            Some(frame_id.to_owned()),
            RuntimeToCore::WorkspaceResult(result),
        ))
        .await
        .unwrap();
}

async fn get(base: &str, path: &str) -> (u16, Value) {
    support::api(base, "GET", path, None).await
}

async fn post_to(base: &str, path: &str, body: Value) -> (u16, Value) {
    support::api(base, "POST", path, Some(body)).await
}

#[tokio::test]
async fn a_self_hosted_session_may_stream_its_creation_without_input() {
    let (_state, base, _dir) = Peer::core_only().await;
    let mut resp = reqwest::Client::new()
        .post(format!("{base}/agents/sessions"))
        .header("authorization", format!("Bearer {}", support::KEY))
        .header("openai-beta", "agents=v1")
        .json(&json!({
            "environment": {"type": "self_hosted", "workspace_directory": "/w"},
            "agent": {"model": "m"},
            "stream": true,
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), resp.chunk())
            .await
            .unwrap()
            .unwrap()
            .expect("the created event");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .expect("a data line");
    let created: Value = serde_json::from_str(data).unwrap();
    assert_eq!(created["type"], "agent.session.created");
    let token = created["session"]["x_agents_core"]["enrollment"]["token"]
        .as_str()
        .unwrap();
    assert!(token.starts_with("sbenr_"));
}

#[tokio::test]
async fn deleting_an_environment_removes_its_workspace_unless_a_session_owns_it() {
    let mut peer = Peer::start().await;
    let (_, env) = peer
        .request(
            "POST",
            "/agents/environments",
            Some(json!({"environment": {"type": "openai_hosted"}})),
        )
        .await;
    let env_id = env["id"].as_str().unwrap().to_owned();
    let deleter = {
        let (base, env_id) = (peer.base.clone(), env_id.clone());
        tokio::spawn(async move {
            let resp = reqwest::Client::new()
                .delete(format!("{base}/agents/environments/{env_id}"))
                .header("authorization", format!("Bearer {}", support::KEY))
                .header("openai-beta", "agents=v1")
                .send()
                .await
                .unwrap();
            (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
        })
    };
    let frame = peer.next_frame().await;
    let CoreToRuntime::WorkspaceRemove(remove) = &frame.message else {
        panic!("expected workspace_remove")
    };
    assert_eq!(remove.environment_id, env_id);
    answer(&peer, frame.id.as_deref().unwrap(), &env_id, &[], None).await;
    let (status, body) = deleter.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"id": env_id, "object": "agent.environment.deleted", "deleted": true})
    );
    let (status, _) = peer
        .request("GET", &format!("/agents/environments/{env_id}"), None)
        .await;
    assert_eq!(status, 404);

    let (_, session) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(self_hosted_body("/w", None)),
        )
        .await;
    let owned = session["environment"]["id"].as_str().unwrap();
    let (status, body) = peer
        .request("DELETE", &format!("/agents/environments/{owned}"), None)
        .await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"]["message"],
        "This Environment belongs to a Session; delete the Session to delete it."
    );
}

#[tokio::test]
async fn a_reservation_survives_a_core_restart_and_its_environment_still_admits_it() {
    let peer = Peer::start().await;
    let (_, session) = peer
        .request(
            "POST",
            "/agents/sessions",
            Some(self_hosted_body("/w", Some("hi"))),
        )
        .await;
    let id = session["id"].as_str().unwrap().to_owned();
    let env_id = session["environment"]["id"].as_str().unwrap().to_owned();
    let peer = peer.restart_core().await;
    let waiting = peer.session(&id).await;
    assert_eq!(waiting["status"], "requires_action");
    assert_eq!(
        waiting["required_actions"][0]["type"],
        "environment_connection"
    );
    let mut enrolled = Peer::attach_environment(
        peer.state.clone(),
        peer.base.clone(),
        tempfile::tempdir().unwrap(),
        &env_id,
    )
    .await;
    enrolled.heartbeat().await;
    let CoreToRuntime::ExecutionPrepare(prepare) = enrolled.next_frame().await.message else {
        panic!("expected execution_prepare")
    };
    assert_eq!(prepare.session_id, id);
    assert_eq!(peer.session(&id).await["required_actions"], json!([]));
}
