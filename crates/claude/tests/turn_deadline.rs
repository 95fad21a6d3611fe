//! A Turn that never ends (the provider never answers) is interrupted at the per-Turn deadline
//! and fails with `request_timeout`; the Session stays usable.

use crate::support;

use std::time::Duration;

use support::*;
use switchboard_claude::ClaudeAdapter;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::ExecutionControls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_fails_a_hanging_turn() {
    let Some(binary) = claude_binary("the_deadline_fails_a_hanging_turn") else {
        return;
    };
    let model = mock_model(Some(Scenario::new(vec![on_request(
        1,
        Reply::text("never").delay_ms(60_000),
    )])))
    .await;
    let adapter = ClaudeAdapter::new(binary).with_turn_deadline(Duration::from_secs(3));
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let (_state, executor) = prepare_fresh(&adapter, config, "claude").await;
    let mut turn = executor.start_turn(user_turn(1, "hang")).await.unwrap();
    assert_failed(&until_terminal(&mut turn).await, "request_timeout");
    let mut next = executor.start_turn(user_turn(2, "again")).await.unwrap();
    let events = until_terminal(&mut next).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
}
