//! Issue 18: a Session bound to a warm codex process keeps its history across eviction. Its
//! state directory is a link to where the warm process started (codex writes its rollouts in
//! the `CODEX_HOME` it resolved at start); evicted to make room, the Session's next Turn
//! launches a process of its own, which `thread/resume`s the thread through the link, and the
//! model sees the first Turn again. Deleting the Session removes the warm process's folder.

use crate::support;

use support::mcp::{model_requests, run};
use support::warm::{
    child_pids, runtime_warm, text_model, until_bound, until_notice, until_warmed,
};
use support::{codex_binary, configuration, next_frame, prepare, send};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::messages::{ExecutionRelease, PreparationState, TurnOutcome};
use switchboard_runtime::{LocalRuntime, Notice};

async fn turn(runtime: &mut LocalRuntime, session: &str, run_id: &str, text: &str) {
    match run(runtime, session, run_id, text).await.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_bound_session_resumes_its_history_after_eviction() {
    let Some(binary) = codex_binary("a_warm_bound_session_resumes_its_history_after_eviction")
    else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("warm-resume-");
    // Two slots: the primer's process and one warm one, then the primer's and the bound one.
    let mut runtime = runtime_warm(binary, state.path(), 2, 1);
    let mut notices = runtime.notices();
    let config = configuration(&model.base_url(), vec![]);

    prepare(&mut runtime, "sess_primer", config.clone()).await;
    let warm = until_warmed(&mut notices).await;
    prepare(&mut runtime, "sess_warm", config.clone()).await;
    assert_eq!(until_bound(&mut notices, "sess_warm").await, warm);
    let state_dir = state.path().join("sessions/sess_warm");
    let pool_dir = std::fs::read_link(&state_dir).expect("the state dir is a link");
    let pool = std::fs::canonicalize(state.path().join("sessions/.warm")).unwrap();
    assert!(pool_dir.starts_with(&pool), "{pool_dir:?}");

    turn(
        &mut runtime,
        "sess_warm",
        "run_1",
        "remember-the-word-heliotrope",
    )
    .await;
    // The primer's Turn makes the warm-bound Session the least recently used one.
    turn(&mut runtime, "sess_primer", "run_2", "primer-turn").await;
    prepare(&mut runtime, "sess_third", config).await;
    until_notice(&mut notices, |n| {
        matches!(n, Notice::Evicted { session_id } if session_id == "sess_warm").then_some(())
    })
    .await;
    assert!(
        !child_pids().contains(&warm),
        "the warm-bound process was ended"
    );

    turn(&mut runtime, "sess_warm", "run_3", "which-word").await;
    let resumed = model_requests(&model)
        .into_iter()
        .map(|body| body.to_string())
        .find(|body| body.contains("which-word"))
        .expect("the resumed Turn reached the model");
    assert!(
        resumed.contains("remember-the-word-heliotrope"),
        "{resumed}"
    );
    assert!(!resumed.contains("primer-turn"), "{resumed}");

    send(
        &runtime,
        "sess_warm",
        ExecutionRelease {
            session_id: "sess_warm".into(),
        },
    )
    .await;
    loop {
        let frame = next_frame(&mut runtime).await;
        if let RuntimeToCore::PreparationStatus(status) = frame.message
            && status.state == PreparationState::Released
        {
            break;
        }
    }
    assert!(state_dir.symlink_metadata().is_err(), "the link is gone");
    assert!(!pool_dir.exists(), "the warm process's folder is gone");
    runtime.shutdown().await;
}
