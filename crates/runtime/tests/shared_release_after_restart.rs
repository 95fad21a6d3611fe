//! A Session released by a restarted Runtime has no executor there, so no process to delete its
//! thread from the shared home with: its thread is kept for deletion, and the next process
//! launched on that home (the other Session's next Turn) deletes it before it serves anything.
//! The other Session's history stays.

use crate::support;

use support::mcp::{binary, configuration, model_requests, prepare, run};
use support::shared::{completed, release, rollouts, runtime_sharing};
use support::warm::text_model;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::PreparationState;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_released_after_a_restart_goes_with_the_homes_next_process() {
    let Some(binary) = binary(
        HarnessId::Codex,
        "a_thread_released_after_a_restart_goes_with_the_homes_next_process",
    ) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("shared-release-restart-");
    let start = || runtime_sharing(binary.clone(), state.path(), None);
    let rollouts = |needle: &str| rollouts(state.path(), needle);

    let mut runtime = start();
    for n in 0..2 {
        let session = format!("sess_{n}");
        let config = configuration(HarnessId::Codex, &model, vec![]);
        let (prepared, error) = prepare(&mut runtime, &session, config).await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
        completed(
            &run(
                &mut runtime,
                &session,
                &format!("run_{n}"),
                &format!("hello-{n}"),
            )
            .await,
        );
    }
    runtime.shutdown().await;

    // The restarted Runtime knows neither Session until Core prepares it again.
    let mut runtime = start();
    release(&mut runtime, "sess_0").await;
    assert!(
        !rollouts("hello-0").is_empty(),
        "no process of the home ran yet to delete the thread"
    );

    let config = configuration(HarnessId::Codex, &model, vec![]);
    let (prepared, error) = prepare(&mut runtime, "sess_1", config).await;
    assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    completed(&run(&mut runtime, "sess_1", "run_again", "again-1").await);
    assert_eq!(rollouts("hello-0"), Vec::<String>::new());
    let last = model_requests(&model).last().unwrap().to_string();
    assert!(
        last.contains("hello-1") && last.contains("again-1"),
        "{last}"
    );
    runtime.shutdown().await;
}
