//! A model that never answers: the per-Turn deadline interrupts codex and fails the Turn with
//! `request_timeout`; the Session stays usable.

mod support;

use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::{Adapter, AdapterEvent, ExecutionControls, PrepareRequest};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadline_fails_a_turn_the_model_never_answers() {
    let Some(binary) = codex_binary("deadline_fails_a_turn_the_model_never_answers") else {
        return;
    };
    let model = FakeResponses::start(Script::Hang).await;
    let state = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let adapter = CodexAdapter::new(binary).with_turn_deadline(Duration::from_secs(2));
    let executor = adapter
        .prepare(PrepareRequest {
            session_id: "sess_deadline".into(),
            configuration: configuration(&model.base_url(), vec![], ExecutionControls::default()),
            state_dir: state.path().to_owned(),
        })
        .await
        .unwrap();
    let mut turn = executor.start_turn(user_turn(1, "hello?")).await.unwrap();
    let events = until_terminal(&mut turn).await;
    match events.last() {
        Some(AdapterEvent::Failed { code, .. }) => assert_eq!(code, "request_timeout"),
        other => panic!("expected a timeout failure, got {other:?}"),
    }
    // Idle again: eviction is allowed at once.
    executor.evict().await.unwrap();
}
