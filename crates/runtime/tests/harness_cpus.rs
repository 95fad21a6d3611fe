//! Which CPUs the harness processes the Runtime starts may run on (issue 18). A codex process
//! that serves one Session with no workspace and no Subagents gets one CPU of its own:
//! the Runtime spreads them, each on the CPU that holds the fewest live ones, and a process that
//! ends gives its CPU back. Warm processes are such processes too. Everything else keeps every
//! CPU the Runtime has: codex in a workspace (the model's commands run there and would inherit
//! the one CPU), codex with Subagents and a shared codex process (Turns run at once in both),
//! and Claude Code.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};

use support::limit::runtime_limited;
use support::mcp::{binary, configuration, model, prepare, prepared_turn};
use support::shared::{release, runtime_sharing};
use support::warm::{child_pids, runtime_warm, text_model, until_warmed};
use switchboard_mock_model::{MockModel, Reply, Rule, Scenario, When};
use switchboard_protocol::SessionConfiguration;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::PreparationState;
use switchboard_protocol::subagents::SubagentControl;
use switchboard_protocol::workspace::{NetworkAccess, Workspace, WorkspacePlacement};
use switchboard_runtime::LocalRuntime;

/// The CPUs in a `Cpus_allowed_list` line's value (`0-3,6`).
fn parse_list(list: &str) -> BTreeSet<usize> {
    list.trim()
        .split(',')
        .flat_map(|part| match part.split_once('-') {
            Some((a, b)) => a.parse().unwrap()..=b.parse().unwrap(),
            None => {
                let cpu: usize = part.parse().unwrap();
                cpu..=cpu
            }
        })
        .collect()
}

/// The CPUs in the `Cpus_allowed_list` of a `/proc/…/status` text.
fn allowed_in(status: &str) -> BTreeSet<usize> {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("a status has Cpus_allowed_list");
    parse_list(line)
}

/// The CPUs process `pid` may run on.
fn cpus_of(pid: u32) -> BTreeSet<usize> {
    allowed_in(&std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap())
}

/// The CPUs this test (and so the Runtime in it) may run on.
fn own_cpus() -> BTreeSet<usize> {
    allowed_in(&std::fs::read_to_string("/proc/thread-self/status").unwrap())
}

/// Confines this test process, every thread of it, to its first three CPUs when it has more
/// (the spread test starts two processes a CPU); the CPUs it may run on then.
fn at_most_three_cpus() -> BTreeSet<usize> {
    let cpus = own_cpus();
    if cpus.len() <= 3 {
        return cpus;
    }
    let three: Vec<String> = cpus.iter().take(3).map(ToString::to_string).collect();
    let status = std::process::Command::new("taskset")
        .args(["--all-tasks", "--pid", "--cpu-list", &three.join(",")])
        .arg(std::process::id().to_string())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "taskset: {status}");
    own_cpus()
}

/// Prepares `session` with `config` and runs a Turn on it; the harness process that appeared
/// for it.
async fn session_process(
    runtime: &mut LocalRuntime,
    session: &str,
    config: SessionConfiguration,
) -> u32 {
    let before = child_pids();
    prepared_turn(runtime, session, config, "hello").await;
    let new: Vec<u32> = child_pids()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    let [pid] = new[..] else {
        panic!("one new process for {session}: {new:?}");
    };
    pid
}

/// A codex Session with no workspace against `model`.
fn codex(model: &MockModel) -> SessionConfiguration {
    configuration(HarnessId::Codex, model, vec![])
}

/// The live processes of `processes` per CPU, each process on exactly one.
fn per_cpu(processes: &BTreeMap<String, u32>) -> BTreeMap<usize, usize> {
    let mut load = BTreeMap::new();
    for (session, pid) in processes {
        let cpus = cpus_of(*pid);
        let [cpu] = cpus.iter().copied().collect::<Vec<_>>()[..] else {
            panic!("{session}'s process {pid} may run on {cpus:?}, not one CPU");
        };
        *load.entry(cpu).or_insert(0) += 1;
    }
    load
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_sessions_without_a_workspace_get_one_cpu_each_spread_over_the_cpus() {
    let test = "codex_sessions_without_a_workspace_get_one_cpu_each_spread_over_the_cpus";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let cpus = at_most_three_cpus();
    let model = text_model("ok").await;
    let state = support::scratch("cpus-spread-");
    if cpus.len() < 2 {
        // Nothing to choose: the process runs where the Runtime does.
        let mut runtime = runtime_limited(HarnessId::Codex, binary, state.path(), 2);
        let pid = session_process(&mut runtime, "sess_alone", codex(&model)).await;
        assert_eq!(cpus_of(pid), cpus);
        eprintln!("{test}: one CPU here, so only that much was checked");
        runtime.shutdown().await;
        return;
    }
    // Two Sessions per CPU, then one CPU's two released and two new Sessions: with the CPUs
    // given back, the new ones go where the released ones were; counted without them, the
    // CPUs taken in turn would put them on the first two CPUs instead.
    let per_cpu_wanted = 2;
    let n = per_cpu_wanted * cpus.len();
    let mut runtime = runtime_limited(HarnessId::Codex, binary, state.path(), n + 2);
    let mut processes = BTreeMap::new();
    for i in 0..n {
        let session = format!("sess_{i}");
        let pid = session_process(&mut runtime, &session, codex(&model)).await;
        processes.insert(session, pid);
    }
    let balanced: BTreeMap<usize, usize> = cpus.iter().map(|&c| (c, per_cpu_wanted)).collect();
    assert_eq!(per_cpu(&processes), balanced);

    let last = *cpus.last().unwrap();
    let on_last: Vec<String> = processes
        .iter()
        .filter(|(_, pid)| cpus_of(**pid).contains(&last))
        .map(|(session, _)| session.clone())
        .collect();
    // A release is answered once the Session's process has ended and its CPU is given back.
    for session in &on_last {
        release(&mut runtime, session).await;
        processes.remove(session);
    }
    for i in n..n + 2 {
        let session = format!("sess_{i}");
        let pid = session_process(&mut runtime, &session, codex(&model)).await;
        assert_eq!(cpus_of(pid), BTreeSet::from([last]), "{session}");
        processes.insert(session, pid);
    }
    assert_eq!(per_cpu(&processes), balanced);
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_codex_process_gets_a_cpu_of_its_own() {
    let test = "a_warm_codex_process_gets_a_cpu_of_its_own";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let cpus = own_cpus();
    let model = text_model("ok").await;
    let state = support::scratch("cpus-warm-");
    let mut runtime = runtime_warm(binary, state.path(), 4, 1);
    let mut notices = runtime.notices();
    let (prepared, error) = prepare(&mut runtime, "sess_primer", codex(&model)).await;
    assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    let warm = until_warmed(&mut notices).await;
    let [session] = child_pids()
        .into_iter()
        .filter(|p| *p != warm)
        .collect::<Vec<_>>()[..]
    else {
        panic!("the Session's process beside the warm one");
    };
    let (on_session, on_warm) = (cpus_of(session), cpus_of(warm));
    if cpus.len() < 2 {
        assert_eq!((&on_session, &on_warm), (&cpus, &cpus));
    } else {
        assert_eq!(on_session.len(), 1, "{on_session:?}");
        assert_eq!(on_warm.len(), 1, "{on_warm:?}");
        assert_ne!(on_session, on_warm, "two processes, two CPUs");
    }
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_agent_codex_process_and_a_warm_one_for_its_settings_keep_every_cpu() {
    let test = "a_multi_agent_codex_process_and_a_warm_one_for_its_settings_keep_every_cpu";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("cpus-agents-");
    let mut runtime = runtime_warm(binary, state.path(), 4, 1);
    let mut notices = runtime.notices();
    let mut config = codex(&model);
    config.execution_controls.subagents = Some(SubagentControl {
        max_concurrent: Some(2),
    });
    let (prepared, error) = prepare(&mut runtime, "sess_agents", config).await;
    assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    let warm = until_warmed(&mut notices).await;
    let pids = child_pids();
    assert_eq!(pids.len(), 2, "the Session's and the warm one: {pids:?}");
    assert!(pids.contains(&warm));
    for pid in pids {
        assert_eq!(cpus_of(pid), own_cpus(), "process {pid}");
    }
    runtime.shutdown().await;
}

/// The model runs `command` once, then answers `DONE`.
fn one_command(command: &str) -> Scenario {
    Scenario::new(vec![
        Rule::new(
            When {
                tool_output_present: Some(false),
                ..When::default()
            },
            Reply::shell(command),
        ),
        Rule::from(Reply::text("DONE")),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_in_a_workspace_and_the_commands_it_runs_keep_every_cpu() {
    let test = "codex_in_a_workspace_and_the_commands_it_runs_keep_every_cpu";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let model = model(one_command(
        "grep Cpus_allowed_list /proc/self/status > cpus.txt",
    ))
    .await;
    let state = support::scratch("cpus-ws-");
    let project = support::scratch("cpus-project-");
    let directory = project.path().canonicalize().unwrap();
    let mut runtime = runtime_limited(HarnessId::Codex, binary, state.path(), 4);
    let mut config = codex(&model);
    config.workspace = Some(Workspace {
        environment_id: "env_cpus".into(),
        placement: WorkspacePlacement::SelfHosted,
        directory: directory.to_str().unwrap().to_owned(),
        capability_directories: vec![],
        network: NetworkAccess::Enabled,
        env: BTreeMap::new(),
        files: vec![],
        setup_commands: vec![],
    });
    let pid = session_process(&mut runtime, "sess_ws", config).await;
    let cpus = own_cpus();
    assert_eq!(cpus_of(pid), cpus, "the harness process");
    let seen = std::fs::read_to_string(directory.join("cpus.txt")).unwrap();
    assert_eq!(allowed_in(&seen), cpus, "the model's command saw {seen:?}");
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_codex_process_keeps_every_cpu() {
    let test = "a_shared_codex_process_keeps_every_cpu";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("cpus-shared-");
    let mut runtime = runtime_sharing(binary, state.path(), None);
    let pid = session_process(&mut runtime, "sess_shared", codex(&model)).await;
    assert_eq!(cpus_of(pid), own_cpus());
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_process_keeps_every_cpu() {
    let test = "a_claude_code_process_keeps_every_cpu";
    let Some(binary) = binary(HarnessId::ClaudeCode, test) else {
        return;
    };
    let model = text_model("ok").await;
    let state = support::scratch("cpus-claude-");
    let mut runtime = runtime_limited(HarnessId::ClaudeCode, binary, state.path(), 4);
    let config = configuration(HarnessId::ClaudeCode, &model, vec![]);
    let pid = session_process(&mut runtime, "sess_claude", config).await;
    assert_eq!(cpus_of(pid), own_cpus());
    runtime.shutdown().await;
}
