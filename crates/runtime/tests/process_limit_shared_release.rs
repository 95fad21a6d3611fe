//! With `max_live_harnesses: 1` and shared Codex processes, releasing a Session whose thread
//! lives on a shared process that has ended takes a slot before it starts the process that
//! deletes the thread: the idle Session holding the only slot is evicted first, so the live
//! processes never exceed the bound, and the released Session's rollout is gone.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use support::limit::live_children;
use support::mcp::{binary, configuration, leak_scan, prepare, run};
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario};
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{ExecutionRelease, PreparationState, TurnOutcome};
use switchboard_protocol::{CoreToRuntime, RuntimeToCore};
use switchboard_runtime::{LocalRuntime, Locator, Notice, Registry, RuntimeOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releasing_a_thread_on_an_ended_shared_process_takes_a_slot_first() {
    let Some(binary) = binary(
        HarnessId::Codex,
        "releasing_a_thread_on_an_ended_shared_process_takes_a_slot_first",
    ) else {
        return;
    };
    let model = MockModel::start(
        MockConfig::loopback().with_scenario(Scenario::new(vec![Rule::from(Reply::text("ok"))])),
    )
    .await
    .unwrap();
    let state = support::scratch("limit-shared-release-");
    let locator = Locator::new(state.path()).with_explicit(HarnessId::Codex, binary);
    let options = RuntimeOptions {
        idle_timeout: Duration::from_secs(300),
        heartbeat_interval: Duration::from_secs(30),
        max_live_harnesses: 1,
        ..RuntimeOptions::for_data_dir(state.path())
    };
    let registry =
        Registry::standard(locator).with_shared_codex_processes(state.path().join("shared"));
    let mut runtime = LocalRuntime::start(Arc::new(registry), options);
    let mut notices = runtime.notices();

    // Two provider keys, two share keys: each Session's thread is on a process of its own key,
    // and the bound holds one process at a time.
    for (n, key) in ["sk-first", "sk-second"].into_iter().enumerate() {
        let session = format!("sess_{n}");
        let mut config = configuration(HarnessId::Codex, &model, vec![]);
        config.model_provider.api_key = key.into();
        let (prepared, error) = prepare(&mut runtime, &session, config).await;
        assert_eq!(prepared, PreparationState::Ready, "{error:?}");
        let frames = run(
            &mut runtime,
            &session,
            &format!("run_{n}"),
            &format!("hello-{n}"),
        )
        .await;
        match frames.last() {
            Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
            other => panic!("{other:?}"),
        }
    }
    // The second Session's Turn took the only slot from the first, whose shared process ended
    // with its last lease.
    let mut evicted = Vec::new();
    while let Ok(notice) = notices.try_recv() {
        if let Notice::Evicted { session_id } = notice {
            evicted.push(session_id);
        }
    }
    assert_eq!(evicted, ["sess_0"]);
    assert_eq!(live_children(), 1);

    release(&mut runtime, "sess_0").await;
    // Deleting the first Session's thread needs a process of its key; that one took the slot
    // of the idle second Session instead of running beside it.
    let mut evicted = Vec::new();
    while let Ok(notice) = notices.try_recv() {
        if let Notice::Evicted { session_id } = notice {
            evicted.push(session_id);
        }
    }
    assert_eq!(evicted, ["sess_1"], "the release waited for a slot");
    let rollouts = |needle: &str| {
        leak_scan(needle, &[state.path()])
            .into_iter()
            .filter(|hit| !hit.contains(".sqlite"))
            .collect::<Vec<_>>()
    };
    assert_eq!(rollouts("hello-0"), Vec::<String>::new());
    assert!(!rollouts("hello-1").is_empty());
    // The evicted Session resumes its thread on its next Turn.
    let frames = run(&mut runtime, "sess_1", "run_again", "again-1").await;
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
}

async fn release(runtime: &mut LocalRuntime, session_id: &str) {
    let release = ExecutionRelease {
        session_id: session_id.into(),
    };
    support::send(
        runtime,
        &format!("rel_{session_id}"),
        CoreToRuntime::ExecutionRelease(release),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(60), async {
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
