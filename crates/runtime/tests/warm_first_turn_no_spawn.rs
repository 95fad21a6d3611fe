//! Issue 18: the first Turn of a Session bound to a warm codex process starts no process. The
//! Session's preparation takes the pool's process (the Runtime's `BoundWarm` notice names its
//! pid), and the first Turn runs with exactly the same harness processes live as before it, on
//! the warm one: that process holds the Session's rollout open. The pool refills only after
//! that Turn has ended (a codex starting beside it would take its CPU).

use crate::support;

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

    let before = child_pids();
    assert!(before.contains(&warm), "{before:?}");
    assert_eq!(before.len(), 2, "the primer's and the bound process");
    let frames = run(&mut runtime, "sess_warm", "run_1", "hello").await;
    let done_at = uptime_ticks();
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => assert_eq!(done.outcome, TurnOutcome::Completed),
        other => panic!("{other:?}"),
    }
    // Then the pool refills: a third process, started after the Turn ended (the refill starts
    // right after it, so its start is compared with the Turn's end, at the kernel's 10 ms
    // resolution, rather than sampled).
    let refill = until_warmed(&mut notices).await;
    assert!(!before.contains(&refill));
    let after = child_pids();
    assert!(
        after.contains(&warm) && after.contains(&refill),
        "{after:?}"
    );
    for pid in after.iter().filter(|p| !before.contains(p)) {
        let started = start_ticks(*pid);
        assert!(
            started + 1 >= done_at,
            "process {pid} started at tick {started}, during the first Turn (ended at {done_at})"
        );
    }

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

/// Clock ticks (USER_HZ, 100 a second) since boot, as `/proc/uptime` gives them.
fn uptime_ticks() -> u64 {
    let uptime = std::fs::read_to_string("/proc/uptime").unwrap();
    let seconds: f64 = uptime.split_whitespace().next().unwrap().parse().unwrap();
    (seconds * 100.0) as u64
}

/// When process `pid` started, in clock ticks since boot (`/proc/PID/stat` field 22).
fn start_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which ends at the last ')': field 3 is the first.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    after
        .split_whitespace()
        .nth(22 - 3)
        .unwrap()
        .parse()
        .unwrap()
}
