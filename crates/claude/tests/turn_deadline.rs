//! A Turn that never ends (the provider never answers) is interrupted at the per-Turn deadline
//! and fails with `request_timeout`; the Session stays usable.

mod support;

use std::time::Duration;

use support::*;
use switchboard_claude::ClaudeAdapter;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::{Adapter, AdapterEvent, ExecutionControls, PrepareRequest};

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
    let state = tempfile::tempdir_in(state_parent()).unwrap();
    let adapter = ClaudeAdapter::new(binary).with_turn_deadline(Duration::from_secs(3));
    let executor = adapter
        .prepare(PrepareRequest {
            session_id: "sess_deadline".into(),
            configuration: configuration(&model.base_url(), vec![], ExecutionControls::default()),
            state_dir: state.path().to_owned(),
        })
        .await
        .unwrap();
    let mut turn = executor.start_turn(user_turn(1, "hang")).await.unwrap();
    let events = until_terminal(&mut turn).await;
    assert!(
        matches!(events.last(), Some(AdapterEvent::Failed { code, .. }) if code == "request_timeout"),
        "{events:?}"
    );
    let mut next = executor.start_turn(user_turn(2, "again")).await.unwrap();
    let events = until_terminal(&mut next).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
}
