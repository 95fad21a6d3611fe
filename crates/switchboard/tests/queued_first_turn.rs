//! Issue 13, item 2: a Turn beyond `--max-live-harnesses` waits queued, never fails. With one
//! slot, held by a Turn whose model answers long after Core's preparation bound (shortened to
//! 2 s by the hidden `--preparation-timeout`), a second Session's first Turn (whose preparation
//! needs the slot) waits for it and completes; nothing fails.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{Core, Mock, poll, scratch, start_limited_on};

const PREPARATION_TIMEOUT: u64 = 2;
/// The holding Turn's model reply comes this late: well past the preparation bound.
const HOLD_MS: u64 = 8000;

async fn create(core: &Core, input: &str) -> String {
    let (status, session) = core
        .api(
            "POST",
            "/agents/sessions",
            Some(json!({
                "environment": {"type": "none"},
                "agent": {"model": "gpt-test"},
                "input": input,
            })),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    session["id"].as_str().unwrap().to_owned()
}

fn asked(mock: &Mock, text: &str) -> bool {
    mock.entries()
        .iter()
        .any(|e| e["path"] == "/v1/responses" && e["body"].to_string().contains(text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_turn_queued_past_the_preparation_timeout_waits_and_completes() {
    if !support::codex_installed(
        "a_first_turn_queued_past_the_preparation_timeout_waits_and_completes",
    ) {
        return;
    }
    let dir = scratch("queued-first-turn-");
    let scenario = json!({"rules": [{
        "when": {"last_text_contains": "hold the slot"},
        "reply": {"text": "held", "delay_ms": HOLD_MS},
    }]});
    let mock = Mock::start(dir.path(), Some(scenario)).await;
    let timeout = PREPARATION_TIMEOUT.to_string();
    let core = start_limited_on(
        &dir.path().join("data"),
        &mock,
        &[
            "--max-live-harnesses",
            "1",
            "--preparation-timeout",
            &timeout,
        ],
    )
    .await;

    let holder = create(&core, "hold the slot").await;
    // Its model request reaching the mock proves its Turn runs on the only slot.
    poll("the holding Turn's model request", || async {
        asked(&mock, "hold the slot").then_some(())
    })
    .await;
    let queued_at = Instant::now();
    let queued = create(&core, "queued behind it").await;

    let session = core.wait_session(&queued, "idle").await;
    let waited = queued_at.elapsed();
    assert!(
        waited > Duration::from_secs(PREPARATION_TIMEOUT),
        "the second Turn did not wait past the preparation bound ({waited:?}): {session}"
    );
    core.wait_session(&holder, "idle").await;
    for id in [&holder, &queued] {
        let turns = core.turns(id).await;
        assert_eq!(turns.len(), 1, "{turns:?}");
        assert_eq!(turns[0]["status"], "completed", "{:?}", turns[0]);
    }
    assert!(asked(&mock, "queued behind it"));
}
