//! A Runtime enrolled for a self-hosted Environment runs that Environment's Sessions only: with
//! only it connected an `environment: none` Session finds no Runtime (and `/readyz` does not
//! count it); once a deployment Runtime connects with the Runtime token, the Session runs there
//! and the enrolled Runtime never prepared it.

use crate::support;

use support::{
    Core, Mock, TOKEN, codex_installed, mint_enrollment, scratch, seed_environment, token_of,
};

const ENV_A: &str = "env_0000000000000000000000000000000a";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enrolled_runtime_never_receives_deployment_work() {
    if !codex_installed("an_enrolled_runtime_never_receives_deployment_work") {
        return;
    }
    let dir = scratch("enrolled-routing-");
    let core_dir = dir.path().join("core");
    seed_environment(&core_dir, ENV_A, "self_hosted").await;
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&core_dir, &mock).await;

    let token = token_of(&mint_enrollment(&core_dir, ENV_A, &core.root).await);
    let enrolled_dir = dir.path().join("enrolled");
    let mut enrolled = core.enrolled_runtime(Some(&token), &enrolled_dir, false);
    enrolled.line().await; // enrolled
    enrolled.line().await; // connected
    // With only the enrolled Runtime connected, no Runtime can run deployment work: admission
    // refuses, and the deployment is not ready.
    let (status, body) = core
        .api(
            "POST",
            "/agents/sessions",
            Some(serde_json::json!({
                "environment": {"type": "none"}, "agent": {"model": "gpt-test"}, "input": "hi",
            })),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"]["code"],
        "unsupported_or_invalid_configuration"
    );
    assert_eq!(
        core.readyz().await,
        503,
        "an enrolled Runtime made the deployment ready"
    );

    // The deployment Runtime connects second, so a routing that ignored the Environment would
    // prefer the enrolled link (the older one).
    let deployment_dir = dir.path().join("deployment");
    let mut deployment = core.runtime(TOKEN, &deployment_dir, false);
    deployment.line().await;
    core.wait_readyz(200).await;
    let id = core.create_session().await;
    core.wait_session(&id, "idle").await;
    let turns = core.turns(&id).await;
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["status"], "completed", "{:?}", turns[0]);

    // Each Runtime keeps a Session's native state under `<data dir>/sessions/<id>`.
    assert!(deployment_dir.join("sessions").join(&id).exists());
    assert!(
        !enrolled_dir.join("sessions").join(&id).exists(),
        "the enrolled Runtime prepared a deployment Session"
    );
    assert!(
        enrolled.child.try_wait().unwrap().is_none(),
        "the enrolled Runtime exited"
    );
}
