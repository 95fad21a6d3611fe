//! A Session with no workspace whose state directory lies inside a git checkout (the host's,
//! when `serve`'s data directory is in one): codex finds no repository there, so its model
//! requests name no checkout, no commit and no change state of the host's.

use crate::support;

use serde_json::Value;
use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::ExecutionControls;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_checkout_stays_out_of_the_model_requests() {
    let Some(binary) = codex_binary("the_host_checkout_stays_out_of_the_model_requests") else {
        return;
    };
    let checkout = host_checkout("codex");
    let head = &checkout.head;
    let model = FakeResponses::start(Script::Text("Done".into())).await;
    let adapter = CodexAdapter::new(binary);
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_in(&adapter, config, &checkout.state).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Hello").await;
    let events = until_terminal(&mut turn).await;
    assert_eq!(final_answer(&events).as_deref(), Some("Done"));

    let journal = model.journal();
    let requests: Vec<&Value> = journal
        .iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/responses"))
        })
        .collect();
    assert!(!requests.is_empty());
    for request in requests {
        // Codex describes the repositories it found in this header's `workspaces`.
        let metadata: Value = request["headers"]["x-codex-turn-metadata"]
            .as_str()
            .map(|h| serde_json::from_str(h).unwrap())
            .unwrap_or_default();
        let workspaces = metadata["workspaces"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        assert!(workspaces.is_empty(), "codex reported {workspaces:?}");
        let sent = request.to_string();
        assert!(!sent.contains(head), "the host's HEAD reached the model");
        assert!(
            !sent.contains("HOST-SECRET"),
            "the host's files reached the model"
        );
    }
    drop(executor);
}
