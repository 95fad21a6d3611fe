//! A model that never answers: the per-Turn deadline interrupts codex and fails the Turn with
//! `request_timeout`; the Session stays usable.

use crate::support;

use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::ExecutionControls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadline_fails_a_turn_the_model_never_answers() {
    let Some(binary) = codex_binary("deadline_fails_a_turn_the_model_never_answers") else {
        return;
    };
    let model = FakeResponses::start(Script::Hang).await;
    let adapter = CodexAdapter::new(binary).with_turn_deadline(Duration::from_secs(2));
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let (_state, executor) = prepare_fresh(&adapter, config, "codex").await;
    let mut turn = start_user_turn(executor.as_ref(), 1, "hello?").await;
    assert_failed(&until_terminal(&mut turn).await, "request_timeout");
    // Idle again: eviction is allowed at once.
    executor.evict().await.unwrap();
}
