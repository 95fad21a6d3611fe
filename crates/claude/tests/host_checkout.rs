//! A Session with no workspace whose state directory lies inside a git checkout (the host's,
//! when `serve`'s data directory is in one): Claude Code's model requests carry no branch,
//! commit, status or file of the host's. (Its environment block still says whether the working
//! directory lies in a repository: claude finds that itself, with no setting to stop it.)

use crate::support;

use support::*;
use switchboard_mock_model::{Reply, Scenario};
use switchboard_protocol::ExecutionControls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_checkout_stays_out_of_the_model_requests() {
    let Some(binary) = claude_binary("the_host_checkout_stays_out_of_the_model_requests") else {
        return;
    };
    let checkout = host_checkout("claude");
    let head = &checkout.head;
    let model = mock_model(Some(Scenario::new(vec![on_request(
        1,
        Reply::text("Done"),
    )])))
    .await;
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_in(&adapter(binary), config, &checkout.state).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Hello").await;
    let events = until_terminal(&mut turn).await;
    assert_eq!(final_answer(&events).as_deref(), Some("Done"));

    let requests = model_requests(&model.journal());
    assert!(!requests.is_empty());
    for request in requests {
        let sent = request.to_string();
        assert!(
            !sent.contains(&head[..7]),
            "the host's HEAD reached the model"
        );
        assert!(
            !sent.contains("host commit"),
            "the host's history reached the model"
        );
        assert!(
            !sent.contains("HOST-SECRET"),
            "the host's files reached the model"
        );
        assert!(
            !sent.contains("Current branch"),
            "the host's branch reached the model"
        );
    }
    drop(executor);
}
