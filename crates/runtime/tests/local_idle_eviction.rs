//! An executor idle for `idle_timeout` is evicted (its codex process ends), and the Session's
//! next Turn resumes it transparently.

use crate::support;

use std::time::Duration;

use support::fake_responses::{FakeResponses, Script};
use support::*;
use switchboard_protocol::messages::{ExecutionStart, TurnOutcome};
use switchboard_protocol::{InputPart, RuntimeToCore};
use switchboard_runtime::Notice;

fn start(run: &str, text: &str) -> ExecutionStart {
    ExecutionStart {
        session_id: "sess_1".into(),
        run_id: run.into(),
        turn_id: format!("turn_{run}"),
        traceparent: None,
        input: vec![InputPart::InputText { text: text.into() }],
    }
}

fn outcome(frames: &[RuntimeToCore]) -> TurnOutcome {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => done.outcome,
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_executor_is_evicted_and_resumed() {
    let Some(binary) = codex_binary("idle_executor_is_evicted_and_resumed") else {
        return;
    };
    let model = FakeResponses::start(Script::Text("still here".into())).await;
    let state = scratch("local-evict-");
    let idle = Duration::from_millis(500);
    let mut runtime = local_runtime(binary, state.path(), idle);
    prepare(
        &mut runtime,
        "sess_1",
        configuration(&model.base_url(), vec![]),
    )
    .await;

    send(&runtime, "run_1", start("run_1", "first")).await;
    let frames = until_done(&mut runtime, "run_1").await;
    assert_eq!(outcome(&frames), TurnOutcome::Completed);

    // Subscribed after the Turn: only the post-Turn idle period can report this eviction.
    let mut notices = runtime.notices();
    let notice = tokio::time::timeout(WAIT, notices.recv())
        .await
        .expect("the idle executor is evicted")
        .unwrap();
    assert_eq!(
        notice,
        Notice::Evicted {
            session_id: "sess_1".into()
        }
    );

    send(&runtime, "run_2", start("run_2", "second")).await;
    let frames = until_done(&mut runtime, "run_2").await;
    assert_eq!(outcome(&frames), TurnOutcome::Completed);
    // The resumed thread sent the first Turn's history along with the second message.
    let requests: Vec<_> = model
        .journal()
        .into_iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/responses"))
        })
        .collect();
    assert_eq!(requests.len(), 2);
    let second_input = requests[1]["body"]["input"].to_string();
    assert!(second_input.contains("first") && second_input.contains("second"));
    runtime.shutdown().await;
}
