//! A remote Runtime that dies mid-Turn (its process killed) loses its link: the started Turn
//! fails with `internal_error` "The execution could not complete." and the Session is failed.
//! Core is not ready again until another Runtime connects.

use crate::support;

use serde_json::json;
use support::{Core, Mock, TOKEN, codex_installed, poll, scratch};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_runtime_mid_turn_fails_the_turn() {
    if !codex_installed("killing_the_runtime_mid_turn_fails_the_turn") {
        return;
    }
    let dir = scratch("remote-lost-");
    // Every model request is answered late: the Turn is still running when the Runtime dies.
    let scenario = json!({"rules": [{"reply": {"delay_ms": 120000}}]});
    let mock = Mock::start(dir.path(), Some(scenario)).await;
    let core = Core::start(&dir.path().join("core"), &mock).await;
    let mut runtime = core.runtime(TOKEN, &dir.path().join("runtime"), false);
    runtime.line().await;
    core.wait_readyz(200).await;

    let id = core.create_session().await;
    // The model request reaching the mock proves the Turn started on the Runtime.
    poll("the model request of the Turn", || async {
        let entries = mock.entries();
        entries
            .iter()
            .any(|e| e["path"] == "/v1/responses")
            .then_some(())
    })
    .await;
    runtime.child.kill().await.expect("killing the runtime");

    let session = core.wait_session(&id, "failed").await;
    let turns = core.turns(&id).await;
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["status"], "failed", "{:?}", turns[0]);
    assert_eq!(
        turns[0]["error"],
        json!({"code": "internal_error", "message": "The execution could not complete."}),
        "{:?}",
        turns[0]
    );
    assert_eq!(session["status"], "failed");
    core.wait_readyz(503).await;
}
