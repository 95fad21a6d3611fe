//! A Runtime enrolled for one self-hosted Environment receives that Environment's Sessions and
//! nothing else: not another Environment's, not `environment: none` work; and a deployment
//! Runtime never receives a self-hosted Environment's Session. Which Runtime prepared a Session
//! shows in its data dir (`sessions/<id>`).

use crate::support;

use serde_json::json;
use support::{Core, Mock, TOKEN, awaits_connection, codex_installed, scratch};

/// Creates a `self_hosted` Session with input: its ID, Environment ID and enrollment token.
async fn self_hosted(core: &Core, workspace: &std::path::Path) -> (String, String, String) {
    std::fs::create_dir_all(workspace).unwrap();
    let body = json!({
        "environment": {"type": "self_hosted", "workspace_directory": workspace.display().to_string()},
        "agent": {"model": "gpt-test"},
        "input": "hi",
    });
    let (status, session) = core.api("POST", "/agents/sessions", Some(body)).await;
    assert_eq!(status, 201, "{session}");
    (
        session["id"].as_str().unwrap().to_owned(),
        session["environment"]["id"].as_str().unwrap().to_owned(),
        session["x_agents_core"]["enrollment"]["token"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enrolled_runtime_runs_only_its_own_environments_sessions() {
    if !codex_installed("an_enrolled_runtime_runs_only_its_own_environments_sessions") {
        return;
    }
    let dir = scratch("environment-isolation-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;
    let deployment_dir = dir.path().join("deployment");
    let mut deployment = core.runtime(TOKEN, &deployment_dir, false);
    deployment.line().await;
    core.wait_readyz(200).await;

    let (a, env_a, token_a) = self_hosted(&core, &dir.path().join("workspace-a")).await;
    let (b, env_b, _token_b) = self_hosted(&core, &dir.path().join("workspace-b")).await;
    let none = core.create_session().await;
    core.wait_session(&none, "idle").await;

    let a_dir = dir.path().join("runtime-a");
    let mut runtime_a = core.enrolled_runtime(Some(&token_a), &a_dir, false);
    runtime_a.line().await; // enrolled
    runtime_a.line().await; // connected
    core.wait_session(&a, "idle").await;
    let turns = core.turns(&a).await;
    assert_eq!(turns[0]["status"], "completed", "{turns:?}");

    // B's Environment is still offline: its Session waits for it, on no Runtime.
    let session_b = core.get(&format!("/agents/sessions/{b}")).await;
    assert!(awaits_connection(&session_b, &env_b), "{session_b}");
    assert!(!awaits_connection(&session_b, &env_a), "{session_b}");
    assert!(
        core.turns(&b)
            .await
            .iter()
            .all(|t| t["status"] != "completed")
    );

    let prepared = |dir: &std::path::Path, id: &str| dir.join("sessions").join(id).exists();
    assert!(prepared(&a_dir, &a));
    assert!(!prepared(&a_dir, &b), "A's Runtime prepared B's Session");
    assert!(
        !prepared(&a_dir, &none),
        "A's Runtime prepared deployment work"
    );
    assert!(prepared(&deployment_dir, &none));
    assert!(
        !prepared(&deployment_dir, &a),
        "the deployment Runtime prepared A's Session"
    );
    assert!(
        !prepared(&deployment_dir, &b),
        "the deployment Runtime prepared B's Session"
    );
}
