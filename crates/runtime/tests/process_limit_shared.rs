//! With `max_live_harnesses: 2` and shared Codex processes, four Sessions with equal settings
//! prepare and run a Turn each without any eviction: they hold threads on one `codex
//! app-server`, which the bound counts once. Releasing three deletes their threads from the
//! shared home and leaves the fourth's process running its next Turn.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use support::limit::live_children;
use support::mcp::{binary, configuration, leak_scan, model_requests, prepare, run};
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario};
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{PreparationState, TurnOutcome};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use switchboard_runtime::{LocalRuntime, Locator, Notice, Registry, RuntimeOptions};

fn completed(frames: &[RuntimeToCore]) {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharing_sessions_count_one_process_against_the_bound() {
    let Some(binary) = binary(
        HarnessId::Codex,
        "sharing_sessions_count_one_process_against_the_bound",
    ) else {
        return;
    };
    let model = MockModel::start(
        MockConfig::loopback().with_scenario(Scenario::new(vec![Rule::from(Reply::text("ok"))])),
    )
    .await
    .unwrap();
    let state = support::scratch("limit-shared-");
    let locator = Locator::new(state.path()).with_explicit(HarnessId::Codex, binary);
    let options = RuntimeOptions {
        idle_timeout: Duration::from_secs(300),
        heartbeat_interval: Duration::from_secs(30),
        max_live_harnesses: 2,
        ..RuntimeOptions::for_data_dir(state.path())
    };
    let registry =
        Registry::standard(locator).with_shared_codex_processes(state.path().join("shared"));
    let mut runtime = LocalRuntime::start(Arc::new(registry), options);
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
    // A released Session's rollout is gone from the shared home too; the others' stays. (Codex's
    // SQLite files there keep the deleted rows' bytes in freed pages until SQLite reuses them:
    // a known limit of sharing, in docs/benchmarks.md.)
    let rollouts = |needle: &str| {
        leak_scan(needle, &[state.path()])
            .into_iter()
            .filter(|hit| !hit.contains(".sqlite"))
            .collect::<Vec<_>>()
    };
    assert_eq!(rollouts("hello-0"), Vec::<String>::new());
    assert!(!rollouts("hello-3").is_empty());
    completed(&run(&mut runtime, "sess_4", "run_again", "again-4").await);
    let last = model_requests(&model).last().unwrap().to_string();
    assert!(
        last.contains("hello-3") && last.contains("again-4"),
        "{last}"
    );
    assert!(!last.contains("hello-0"), "{last}");
}

async fn release(runtime: &mut LocalRuntime, session_id: &str) {
    let release = switchboard_protocol::messages::ExecutionRelease {
        session_id: session_id.into(),
    };
    support::send(
        runtime,
        &format!("rel_{session_id}"),
        CoreToRuntime::ExecutionRelease(release),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let frame = support::next_frame(runtime).await;
            if let RuntimeToCore::PreparationStatus(status) = frame.message
                && status.state == PreparationState::Released
            {
                return;
            }
        }
    })
    .await
    .expect("the Session is released");
}
