//! `serve --no-local-runtime` is not ready until a Runtime connects; `switchboard runtime`
//! dials it with the token, says it is connected, makes `/readyz` answer 200, and runs a
//! Session end to end on the real codex harness against the mock model.

use crate::support;

use support::{Core, Mock, TOKEN, codex_installed, scratch};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_runtime_runs_a_session_end_to_end() {
    if !codex_installed("a_remote_runtime_runs_a_session_end_to_end") {
        return;
    }
    let dir = scratch("remote-session-");
    let mock = Mock::start(dir.path(), None).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;
    // No local Runtime: nothing can run yet.
    assert_eq!(core.readyz().await, 503);

    let mut runtime = core.runtime(TOKEN, &dir.path().join("runtime"), false);
    let connected = runtime.line().await;
    assert_eq!(
        connected,
        format!(
            "Runtime remote-test connected to {}/runtime/connect",
            core.ws_url()
        )
    );
    core.wait_readyz(200).await;

    let id = core.create_session().await;
    core.wait_session(&id, "idle").await;

    let turns = core.turns(&id).await;
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["status"], "completed", "{:?}", turns[0]);
    let items = core.items(&id).await;
    let answer = items
        .iter()
        .find(|i| i["type"] == "message" && i["role"] == "assistant")
        .unwrap_or_else(|| panic!("no assistant message in {items:?}"));
    // The mock's built-in default echoes the last user message.
    assert!(answer.to_string().contains("ECHO: hi"), "{answer}");
}
