//! When a shared app-server dies, every Session on it fails its started Turn
//! (`harness_exited`), nothing is replayed, and each Session's next input runs on a new process
//! that resumes its own thread with its history.

use crate::support;

use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_shared_process_fails_both_turns_and_both_resume() {
    let Some(pair) = SharingPair::after_a_turn_each(
        "a_dead_shared_process_fails_both_turns_and_both_resume",
        r#"{"city":"Kyiv"}"#,
    )
    .await
    else {
        return;
    };
    let threads = (
        pair.alpha.native_session_id(),
        pair.beta.native_session_id(),
    );

    let (mut turn_a, _) = pending_call(pair.alpha.as_ref(), 2, "alpha turn two").await;
    let (mut turn_b, _) = pending_call(pair.beta.as_ref(), 2, "beta turn two").await;
    let pids = pair.host.process_ids();
    assert_eq!(pids.len(), 1);
    let before = model_requests(&pair.model.journal()).len();
    assert_eq!(before, 6);
    signal(pids[0], "KILL");
    assert_failed(&until_terminal(&mut turn_a).await, "harness_exited");
    assert_failed(&until_terminal(&mut turn_b).await, "harness_exited");
    until_gone(pids[0]).await;
    assert!(
        pair.host.process_ids().is_empty(),
        "nothing replaced the process on its own"
    );
    assert_eq!(
        model_requests(&pair.model.journal()).len(),
        before,
        "no Turn was replayed"
    );

    // The next input of each resumes its own thread on one new process.
    pair.both_run_on_a_new_process(pids[0]).await;
    assert_eq!(
        (
            pair.alpha.native_session_id(),
            pair.beta.native_session_id()
        ),
        threads
    );
    let journal = pair.model.journal();
    for (name, other) in [("alpha", "beta"), ("beta", "alpha")] {
        let mine = requests_of(&journal, name);
        let resumed = mine[mine.len() - 2].to_string();
        assert!(
            resumed.contains(&format!("{name} turn one")),
            "history kept: {resumed}"
        );
        assert!(resumed.contains(&format!("{name} turn three")));
        assert!(!resumed.contains(&format!("{other} turn")), "{resumed}");
    }
}
