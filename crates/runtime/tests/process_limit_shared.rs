//! With `max_live_harnesses: 2` and shared Codex processes, four Sessions with equal settings
//! prepare and run a Turn each without any eviction: they hold threads on one `codex
//! app-server`, which the bound counts once. Releasing three deletes their threads from the
//! shared home and leaves the fourth's process running its next Turn.

use crate::support;

use support::limit::live_children;
use support::mcp::{binary, configuration, model_requests, prepare, run};
use support::shared::{completed, release, rollouts, runtime_sharing};
use support::warm::text_model;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::PreparationState;
use switchboard_runtime::Notice;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharing_sessions_count_one_process_against_the_bound() {
    let Some(binary) = binary(
        HarnessId::Codex,
        "sharing_sessions_count_one_process_against_the_bound",
    ) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("limit-shared-");
    let mut runtime = runtime_sharing(binary, state.path(), Some(2));
    let mut notices = runtime.notices();

    let sessions = ["sess_1", "sess_2", "sess_3", "sess_4"];
    for (n, session) in sessions.iter().enumerate() {
        let (prepared, error) = prepare(
            &mut runtime,
            session,
            configuration(HarnessId::Codex, &model, vec![]),
        )
        .await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
        completed(
            &run(
                &mut runtime,
                session,
                &format!("run_{n}"),
                &format!("hello-{n}"),
            )
            .await,
        );
    }
    assert_eq!(live_children(), 1, "four Sessions, one process");
    while let Ok(notice) = notices.try_recv() {
        assert!(!matches!(notice, Notice::Evicted { .. }), "{notice:?}");
    }
    assert_eq!(model_requests(&model).len(), 4);

    for session in &sessions[..3] {
        release(&mut runtime, session).await;
    }
    assert_eq!(live_children(), 1, "the last Session's process stays");
    // A released Session's rollout is gone from the shared home too; the others' stays.
    assert_eq!(rollouts(state.path(), "hello-0"), Vec::<String>::new());
    assert!(!rollouts(state.path(), "hello-3").is_empty());
    completed(&run(&mut runtime, "sess_4", "run_again", "again-4").await);
    let last = model_requests(&model).last().unwrap().to_string();
    assert!(
        last.contains("hello-3") && last.contains("again-4"),
        "{last}"
    );
    assert!(!last.contains("hello-0"), "{last}");
}
