//! A provider failure fails the Turn: claude reports it as `subtype: "success"` with
//! `is_error: true`, which the adapter maps to a native error code, not a completed Turn. With
//! retries off it fails at once, and the Session's next Turn runs normally.

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::ExecutionControls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_error_fails_the_turn() {
    let Some(binary) = claude_binary("a_provider_error_fails_the_turn") else {
        return;
    };
    let scenario = Scenario::new(vec![
        on_request(1, Reply::error(500, "boom")),
        on_request(2, Reply::error(429, "slow down")),
    ]);
    let session = session(binary, Some(scenario), vec![], ExecutionControls::default()).await;

    for (n, code) in [(1, "server_error"), (2, "rate_limit_exceeded")] {
        let mut turn = session.turn(n, "hello").await;
        let events = until_terminal(&mut turn).await;
        assert_failed(&events, code);
        // claude's own "API Error: …" text is not a message of the model.
        assert!(completed_messages(&events).is_empty(), "{events:?}");
    }
    assert_eq!(session.model_calls().len(), 2, "no retries");

    let mut turn = session.turn(3, "again").await;
    let events = until_terminal(&mut turn).await;
    assert_eq!(final_answer(&events).as_deref(), Some("ECHO: again"));
}
