//! Issue 18: warm processes count against `max_live_harnesses`. With two slots and a pool of
//! one, the first Session's process and a warm one fill the bound; a Session with other
//! process-wide settings (another provider key) cannot use the warm process, and its
//! preparation ends it (`Shed`) rather than evict the idle first Session. Never more than two
//! harness processes live, and both Sessions run their Turns.

use crate::support;

use support::limit::{ChildPeak, live_children};
use support::mcp::run;
use support::warm::{child_pids, received, runtime_warm, text_model, until_notice, until_warmed};
use support::{codex_binary, configuration, prepare};
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::messages::TurnOutcome;
use switchboard_runtime::{LocalRuntime, Notice};

async fn turn(runtime: &mut LocalRuntime, session: &str, run_id: &str) {
    match run(runtime, session, run_id, "hello").await.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warm_processes_hold_slots_and_give_them_up() {
    let Some(binary) = codex_binary("warm_processes_hold_slots_and_give_them_up") else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("warm-bound-");
    let mut runtime = runtime_warm(binary, state.path(), 2, 1);
    let peak = ChildPeak::start();
    let mut notices = runtime.notices();
    let config = configuration(&model.base_url(), vec![]);

    prepare(&mut runtime, "sess_1", config.clone()).await;
    let warm = until_warmed(&mut notices).await;
    assert_eq!(live_children(), 2, "the Session's process and the warm one");

    let mut other = config;
    other.model_provider.api_key = "sk-another-key".into();
    prepare(&mut runtime, "sess_2", other).await;
    let shed = until_notice(&mut notices, |n| match n {
        Notice::Shed { pid } => Some(*pid),
        _ => None,
    })
    .await;
    assert_eq!(shed, warm);
    assert!(!child_pids().contains(&warm));
    turn(&mut runtime, "sess_1", "run_1").await;
    turn(&mut runtime, "sess_2", "run_2").await;

    let seen = received(&mut notices);
    assert!(
        !seen
            .iter()
            .any(|n| matches!(n, Notice::Evicted { .. } | Notice::BoundWarm { .. })),
        "{seen:?}"
    );
    // The bound is full with the two Sessions: no warm process came back.
    assert_eq!(live_children(), 2);
    assert!(
        !seen.iter().any(|n| matches!(n, Notice::Warmed { .. })),
        "{seen:?}"
    );
    assert!(
        peak.peak() <= 2,
        "{} harness processes were live at once",
        peak.peak()
    );
    runtime.shutdown().await;
}
