//! With `max_live_harnesses: 1` and shared Codex processes, releasing a Session whose thread
//! lives on a shared process that has ended takes a slot before it starts the process that
//! deletes the thread: the idle Session holding the only slot is evicted first, so the live
//! processes never exceed the bound, and the released Session's rollout is gone.

use crate::support;

use support::limit::live_children;
use support::mcp::{binary, configuration, prepare, run};
use support::shared::{completed, release, rollouts, runtime_sharing};
use support::warm::text_model;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::PreparationState;
use switchboard_runtime::Notice;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releasing_a_thread_on_an_ended_shared_process_takes_a_slot_first() {
    let Some(binary) = binary(
        HarnessId::Codex,
        "releasing_a_thread_on_an_ended_shared_process_takes_a_slot_first",
    ) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("limit-shared-release-");
    let mut runtime = runtime_sharing(binary, state.path(), Some(1));
    let mut notices = runtime.notices();

    // Two provider keys, two share keys: each Session's thread is on a process of its own key,
    // and the bound holds one process at a time.
    for (n, key) in ["sk-first", "sk-second"].into_iter().enumerate() {
        let session = format!("sess_{n}");
        let mut config = configuration(HarnessId::Codex, &model, vec![]);
        config.model_provider.api_key = key.into();
        let (prepared, error) = prepare(&mut runtime, &session, config).await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
        let (run_id, text) = (format!("run_{n}"), format!("hello-{n}"));
        completed(&run(&mut runtime, &session, &run_id, &text).await);
    }
    // The second Session's Turn took the only slot from the first, whose shared process ended
    // with its last lease.
    assert_eq!(evicted(&mut notices), ["sess_0"]);
    assert_eq!(live_children(), 1);

    release(&mut runtime, "sess_0").await;
    // Deleting the first Session's thread needs a process of its key; that one took the slot
    // of the idle second Session instead of running beside it.
    assert_eq!(
        evicted(&mut notices),
        ["sess_1"],
        "the release waited for a slot"
    );
    assert_eq!(rollouts(state.path(), "hello-0"), Vec::<String>::new());
    assert!(!rollouts(state.path(), "hello-1").is_empty());
    // The evicted Session resumes its thread on its next Turn.
    completed(&run(&mut runtime, "sess_1", "run_again", "again-1").await);
}

/// The Sessions evicted since the last look.
fn evicted(notices: &mut tokio::sync::broadcast::Receiver<Notice>) -> Vec<String> {
    support::warm::received(notices)
        .into_iter()
        .filter_map(|notice| match notice {
            Notice::Evicted { session_id } => Some(session_id),
            _ => None,
        })
        .collect()
}
