//! Issue 18: the first Turn of a Session bound to a warm codex process starts no process. The
//! Session's preparation takes the pool's process (the Runtime's `BoundWarm` notice names its
//! pid), the pool refills, and then the first Turn runs with exactly the same harness
//! processes live as before it, on the warm one: that process holds the Session's rollout open.

// Test code may panic (clippy.toml's test allowance misses integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::limit::ChildPeak;
use support::mcp::run;
use support::warm::{
    child_pids, holds_rollout_under, runtime_warm, text_model, until_bound, until_warmed,
};
use support::{codex_binary, configuration, prepare};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::messages::TurnOutcome;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_turn_of_a_warm_bound_session_spawns_nothing() {
    let Some(binary) = codex_binary("the_first_turn_of_a_warm_bound_session_spawns_nothing") else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("warm-nospawn-");
    let mut runtime = runtime_warm(binary, state.path(), 8, 1);
    let mut notices = runtime.notices();
    let config = configuration(&model.base_url(), vec![]);

    prepare(&mut runtime, "sess_primer", config.clone()).await;
    let warm = until_warmed(&mut notices).await;
    prepare(&mut runtime, "sess_warm", config).await;
    assert_eq!(until_bound(&mut notices, "sess_warm").await, warm);
    let refill = until_warmed(&mut notices).await;

    let before = child_pids();
    assert!(
        before.contains(&warm) && before.contains(&refill),
        "{before:?}"
    );
    assert_eq!(
        before.len(),
        3,
        "the primer's, the bound and the refilled process"
    );
    let peak = ChildPeak::start();
    let frames = run(&mut runtime, "sess_warm", "run_1", "hello").await;
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
    assert_eq!(child_pids(), before, "the Turn started or ended a process");
    assert_eq!(peak.peak(), 3, "a process came and went during the Turn");

    // The Turn ran on the warm process: it holds the Session's rollout, in the Session's
    // codex home (a link to where the warm process started).
    let home = std::fs::canonicalize(state.path().join("sessions/sess_warm/codex-home")).unwrap();
    assert!(
        holds_rollout_under(warm, &home),
        "{warm} does not hold a rollout in {home:?}"
    );
    runtime.shutdown().await;
    assert!(
        child_pids().is_empty(),
        "shutdown ends the warm processes too"
    );
}
