//! Eviction and resume: codex-acp advertises `loadSession`, so the next Turn after an eviction
//! starts a new process that reopens the same session with `session/load`; the replayed history
//! is not republished, and the model sees the earlier exchange.

use crate::support;

use support::*;
use switchboard_acp::CODEX_ACP;
use switchboard_mock_model::{Reply, Rule, Scenario};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evicted_session_resumes_with_its_history() {
    let Some(binary) = agent_binary("an_evicted_session_resumes_with_its_history", &CODEX_ACP)
    else {
        return;
    };
    let scenario = Scenario::new(vec![Rule::from(Reply::text("noted"))]);
    let model = mock_model(Some(scenario)).await;
    let (_state, executor) =
        prepare(CODEX_ACP, binary, configuration(&model.base_url(), vec![])).await;

    let mut turn = start_user_turn(executor.as_ref(), 1, "Remember PINEAPPLE-42").await;
    assert_completed(&until_terminal(&mut turn).await);
    let session_id = executor.native_session_id().unwrap();
    executor.evict().await.unwrap();
    assert!(
        !executor.is_resident(),
        "an evicted Session holds no process"
    );

    let mut turn = start_user_turn(executor.as_ref(), 2, "What did I ask you to remember?").await;
    let events = until_terminal(&mut turn).await;
    assert_completed(&events);
    // Only this Turn's message: the replayed history is not published again.
    assert_eq!(completed_messages(&events).len(), 1, "{events:?}");
    assert_eq!(final_answer(&events).as_deref(), Some("noted"));
    assert!(executor.is_resident());
    assert_eq!(
        executor.native_session_id(),
        Some(session_id),
        "the same session"
    );
    let journal = model.journal();
    let last = journal
        .iter()
        .rev()
        .find(|r| r["path"] == "/v1/responses")
        .unwrap();
    assert!(
        last.to_string().contains("PINEAPPLE-42"),
        "the history reaches the model"
    );
}
