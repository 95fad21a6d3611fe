//! Issue 13, item 4: SIGTERM with a Turn in flight. The model answers too late for the Turn to
//! finish; after the grace period the Turn fails with the public error, the open stream receives
//! `turn.failed` and the Session's failed status before it ends, the process exits, and after a
//! restart the stored Turn is failed and nothing was sent to the model again.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{API_KEY, Core, Mock, open_events, poll, read_to_close, scratch, start_limited_on};
use tokio::net::TcpStream;

const GRACE: u64 = 2;

async fn serve(data: &std::path::Path, mock: &Mock) -> Core {
    let grace = GRACE.to_string();
    start_limited_on(data, mock, &["--shutdown-grace", &grace]).await
}

fn model_requests(mock: &Mock) -> usize {
    mock.entries()
        .iter()
        .filter(|e| e["path"] == "/v1/responses")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_fails_the_turn_after_the_grace_and_publishes_its_end() {
    if !support::codex_installed("sigterm_fails_the_turn_after_the_grace_and_publishes_its_end") {
        return;
    }
    let dir = scratch("sigterm-");
    // Every model request is answered late: the Turn is still running at SIGTERM.
    let scenario = json!({"rules": [{"reply": {"delay_ms": 120000}}]});
    let mock = Mock::start(dir.path(), Some(scenario)).await;
    let data = dir.path().join("data");
    let core = serve(&data, &mock).await;
    core.wait_readyz(200).await;
    let id = core.create_session().await;
    let addr = core.root.strip_prefix("http://").unwrap().to_owned();
    let mut sse = open_events(&addr, &id, API_KEY).await;
    // The model request reaching the mock proves the Turn started.
    poll("the model request of the Turn", || async {
        (model_requests(&mock) > 0).then_some(())
    })
    .await;
    let sent = model_requests(&mock);
    let pid = core.process.child.id().unwrap().to_string();
    let signalled = Instant::now();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );

    // The stream receives the terminal events, then ends.
    let seen = read_to_close(&mut sse).await;
    let failed_turn = seen
        .find("\"type\":\"agent.session.turn.failed\"")
        .expect(&seen);
    let failed_session = seen.find("\"type\":\"agent.session.failed\"").expect(&seen);
    assert!(failed_turn < failed_session, "{seen}");

    let (status, _) = core.process.exit().await;
    assert!(status.success(), "{status:?}");
    let took = signalled.elapsed();
    assert!(
        took >= Duration::from_secs(GRACE),
        "exited before the grace: {took:?}"
    );
    assert!(took < Duration::from_secs(GRACE + 10), "exit took {took:?}");

    // After a restart the stored Turn is failed with the public error, and not replayed.
    let core = serve(&data, &mock).await;
    core.wait_readyz(200).await;
    let session = core.get(&format!("/agents/sessions/{id}")).await;
    assert_eq!(session["status"], "failed", "{session}");
    let turns = core.turns(&id).await;
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["status"], "failed", "{:?}", turns[0]);
    assert_eq!(
        turns[0]["error"],
        json!({"code": "internal_error", "message": "The execution could not complete."}),
    );
    assert_eq!(model_requests(&mock), sent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_exits_at_once() {
    if !support::codex_installed("a_second_signal_exits_at_once") {
        return;
    }
    let dir = scratch("sigterm-twice-");
    let scenario = json!({"rules": [{"reply": {"delay_ms": 120000}}]});
    let mock = Mock::start(dir.path(), Some(scenario)).await;
    let data = dir.path().join("data");
    let core = start_limited_on(&data, &mock, &["--shutdown-grace", "600"]).await;
    let addr = core.addr();
    core.create_session().await;
    poll("the model request of the Turn", || async {
        (model_requests(&mock) > 0).then_some(())
    })
    .await;
    let pid = core.process.child.id().unwrap().to_string();
    let kill = || {
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
    };
    assert!(kill().success());
    // The first signal closed the listener: once new connections are refused, it was handled.
    poll("the listener to close", || async {
        TcpStream::connect(&addr).await.is_err().then_some(())
    })
    .await;
    assert!(kill().success());
    let (status, _) = core.process.exit().await;
    assert_eq!(status.code(), Some(130), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_ends_within_the_grace_completes() {
    if !support::codex_installed("a_turn_that_ends_within_the_grace_completes") {
        return;
    }
    let dir = scratch("sigterm-finish-");
    // The model answers after 3 s: the Turn is running at SIGTERM and ends well within the grace.
    let scenario = json!({"rules": [{"reply": {"delay_ms": 3000}}]});
    let mock = Mock::start(dir.path(), Some(scenario)).await;
    let data = dir.path().join("data");
    let core = start_limited_on(&data, &mock, &["--shutdown-grace", "600"]).await;
    let addr = core.addr();
    let id = core.create_session().await;
    let mut sse = open_events(&addr, &id, API_KEY).await;
    poll("the model request of the Turn", || async {
        (model_requests(&mock) > 0).then_some(())
    })
    .await;
    let pid = core.process.child.id().unwrap().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let seen = read_to_close(&mut sse).await;
    assert!(
        seen.contains("\"type\":\"agent.session.turn.completed\""),
        "{seen}"
    );
    assert!(!seen.contains("turn.failed"), "{seen}");
    // Exited long before the 600 s grace: nothing was left to wait for.
    let (status, _) = core.process.exit().await;
    assert!(status.success(), "{status:?}");

    let core = serve(&data, &mock).await;
    core.wait_readyz(200).await;
    let turns = core.turns(&id).await;
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["status"], "completed", "{:?}", turns[0]);
}
