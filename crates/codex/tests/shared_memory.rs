//! A measurement (ignored by default; `--run-ignored only`): the harness memory per live idle
//! Codex Session, `N` Sessions sharing one app-server against `N` with a process each. Each
//! Session runs one Turn, then every process's private dirty memory (`/proc/PID/smaps_rollup`)
//! is read. The target (issue 18) is at most 5 MB per live idle Session when sharing.

use crate::support;

use std::time::Instant;

use support::*;

const N: usize = 20;

/// Private dirty kB of `pid`.
fn private_dirty_kb(pid: u32) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("Private_Dirty:"))
        .filter_map(|rest| rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        .sum()
}

/// The pids of live `codex app-server` processes whose command line names `base_url`.
fn codex_pids(base_url: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline);
        if cmdline.contains("app-server") && cmdline.contains(base_url) && running(pid) {
            pids.push(pid);
        }
    }
    pids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --run-ignored only --nocapture"]
async fn memory_per_live_idle_session_sharing_vs_not() {
    let Some(binary) = codex_binary("memory_per_live_idle_session_sharing_vs_not") else {
        return;
    };
    // Sharing.
    let model = weather_model(r#"{"city":"Oslo"}"#).await;
    let url = model.base_url();
    let (_root, adapter, host) = sharing_adapter(binary.clone());
    let mut shared = Vec::new();
    let started = Instant::now();
    for i in 0..N {
        let (state, executor) = prepare_fresh(
            &adapter,
            named_configuration(&url, &format!("s{i}")),
            "codex",
        )
        .await;
        weather_turn(executor.as_ref(), 1, &format!("s{i} asks")).await;
        shared.push((state, executor));
        if i == 0 {
            let pid = host.process_ids()[0];
            println!(
                "sharing: 1 Session: {} kB private dirty",
                private_dirty_kb(pid)
            );
        }
    }
    let sharing_elapsed = started.elapsed();
    let pids = host.process_ids();
    assert_eq!(pids.len(), 1);
    let shared_kb = private_dirty_kb(pids[0]);

    // A process each (a provider at another address, so the processes are told apart).
    let own_model = weather_model(r#"{"city":"Oslo"}"#).await;
    let own_url = own_model.base_url();
    let mut own = Vec::new();
    let started = Instant::now();
    for i in 0..N {
        let (state, executor) = session(
            binary.clone(),
            &own_url,
            vec![get_weather(), only_tool(&format!("s{i}"))],
        )
        .await;
        weather_turn(executor.as_ref(), 1, &format!("s{i} asks")).await;
        own.push((state, executor));
    }
    let own_elapsed = started.elapsed();
    let own_pids = codex_pids(&own_url);
    assert_eq!(own_pids.len(), N);
    let own_kb: u64 = own_pids.iter().map(|&pid| private_dirty_kb(pid)).sum();

    let per_shared = shared_kb as f64 / N as f64 / 1024.0;
    let per_own = own_kb as f64 / N as f64 / 1024.0;
    println!(
        "N={N}: sharing {shared_kb} kB in 1 process = {per_shared:.2} MB per Session \
         ({sharing_elapsed:.1?} to prepare and run); own processes {own_kb} kB in {N} = \
         {per_own:.2} MB per Session ({own_elapsed:.1?}); ratio {:.1}",
        per_own / per_shared
    );
    assert!(per_shared <= 5.0, "{per_shared:.2} MB per shared Session");
}
