//! A shared app-server that stops answering is hung for every Session on it. Once a request to
//! it goes unanswered for its whole timeout (here alpha's `turn/start`), it is ended: beta's
//! started Turn fails `harness_exited` with nothing replayed, and both Sessions' next Turns
//! resume their threads on a new process instead of joining the hung one again.

use crate::support;

use support::*;
use switchboard_protocol::AdapterError;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_shared_process_is_ended_for_every_session_on_it() {
    let Some(pair) = SharingPair::after_a_turn_each(
        "a_hung_shared_process_is_ended_for_every_session_on_it",
        r#"{"city":"Kyiv"}"#,
    )
    .await
    else {
        return;
    };
    let (mut turn_b, _) = pending_call(pair.beta.as_ref(), 2, "beta turn two").await;
    let pids = pair.host.process_ids();
    assert_eq!(pids.len(), 1);
    let before = model_requests(&pair.model.journal()).len();

    // Stopped, the process reads and answers nothing, as a hung one would.
    signal(pids[0], "STOP");
    let started = pair.alpha.start_turn(user_turn(2, "alpha turn two")).await;
    assert!(
        matches!(started, Err(AdapterError::Timeout(_))),
        "turn/start went unanswered: {:?}",
        started.err()
    );
    assert_failed(&until_terminal(&mut turn_b).await, "harness_exited");
    until_gone(pids[0]).await;
    assert_eq!(
        model_requests(&pair.model.journal()).len(),
        before,
        "no Turn was replayed"
    );

    pair.both_run_on_a_new_process(pids[0]).await;
}
