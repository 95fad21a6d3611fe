//! Issue 18: a warm process that exits on its own while it waits in the pool still holds a
//! slot. When the bound is full and a preparation needs a slot, that dead process is the one
//! given up (`Shed`), not a live warm process, which the next Session of its settings still
//! gets.

use crate::support;

use std::time::Duration;

use support::warm::{
    child_pids, runtime_warm, text_model, until_bound, until_notice, until_warmed,
};
use support::{codex_binary, configuration, prepare};
use switchboard_runtime::Notice;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exited_warm_process_is_given_up_before_a_live_one() {
    let Some(binary) = codex_binary("an_exited_warm_process_is_given_up_before_a_live_one") else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("warm-exited-");
    // Three slots: the first Session's process and a pool of two.
    let mut runtime = runtime_warm(binary, state.path(), 3, 2);
    let mut notices = runtime.notices();
    let config = configuration(&model.base_url(), vec![]);

    prepare(&mut runtime, "sess_1", config.clone()).await;
    let older = until_warmed(&mut notices).await;
    let newer = until_warmed(&mut notices).await;
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &newer.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Exited: its leader is a zombie with no thread left (a killed leader shows `Z` while its
    // other threads still exit, and cannot be waited for until they have).
    let exited = || {
        let stat = std::fs::read_to_string(format!("/proc/{newer}/stat")).unwrap_or_default();
        let tasks = std::fs::read_dir(format!("/proc/{newer}/task")).map_or(0, Iterator::count);
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'))
            && tasks <= 1
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !exited() {
        assert!(tokio::time::Instant::now() < deadline, "{newer} still runs");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // Other process-wide settings: no warm process serves it, and the bound is full.
    let mut other = config.clone();
    other.model_provider.api_key = "sk-another-key".into();
    prepare(&mut runtime, "sess_2", other).await;
    let shed = until_notice(&mut notices, |n| match n {
        Notice::Shed { pid } => Some(*pid),
        _ => None,
    })
    .await;
    assert_eq!(shed, newer, "the exited process gave up its slot");
    assert!(child_pids().contains(&older), "the live warm process stays");

    prepare(&mut runtime, "sess_3", config).await;
    assert_eq!(until_bound(&mut notices, "sess_3").await, older);
    runtime.shutdown().await;
}
