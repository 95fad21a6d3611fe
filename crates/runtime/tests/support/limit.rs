//! A Runtime bounded to a few live harness processes, and a count of the processes it really
//! holds: this test process's live children (each harness process is one).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_protocol::configuration::HarnessId;
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};

/// A Runtime running `harness` from `binary` with at most `max_live` harness processes.
pub fn runtime_limited(
    harness: HarnessId,
    binary: PathBuf,
    state: &Path,
    max_live: usize,
) -> LocalRuntime {
    let launches = RuntimeOptions::for_data_dir(state).max_concurrent_launches;
    runtime_bounded(harness, binary, state, max_live, launches)
}

/// [`runtime_limited`] starting at most `launches` harness processes at once.
pub fn runtime_launching(
    harness: HarnessId,
    binary: PathBuf,
    state: &Path,
    launches: usize,
) -> LocalRuntime {
    let max_live = RuntimeOptions::for_data_dir(state).max_live_harnesses;
    runtime_bounded(harness, binary, state, max_live, launches)
}

/// A Runtime with at most `max_live` harness processes, starting at most `launches` at once.
pub fn runtime_bounded(
    harness: HarnessId,
    binary: PathBuf,
    state: &Path,
    max_live: usize,
    launches: usize,
) -> LocalRuntime {
    let options = RuntimeOptions {
        max_concurrent_launches: launches,
        ..bounded_options(state, max_live)
    };
    runtime_with(harness, binary, state, options)
}

/// Options for a Runtime on `state` with at most `max_live` harness processes, no idle
/// eviction within a test.
pub fn bounded_options(state: &Path, max_live: usize) -> RuntimeOptions {
    RuntimeOptions {
        idle_timeout: Duration::from_secs(300),
        heartbeat_interval: Duration::from_secs(30),
        max_live_harnesses: max_live,
        ..RuntimeOptions::for_data_dir(state)
    }
}

/// A Runtime running `harness` from `binary` with `options`.
pub fn runtime_with(
    harness: HarnessId,
    binary: PathBuf,
    state: &Path,
    options: RuntimeOptions,
) -> LocalRuntime {
    let locator = Locator::new(state).with_explicit(harness, binary);
    LocalRuntime::start(Arc::new(Registry::standard(locator)), options)
}

/// This process's live children that are Session processes (`codex app-server`, `claude
/// --input-format stream-json`), from `/proc`: zombies and short version probes excluded.
pub fn live_children() -> usize {
    live_child_dirs().len()
}

/// The `/proc/<pid>` directories of [`live_children`].
pub fn live_child_dirs() -> Vec<PathBuf> {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                return false;
            };
            // `pid (comm) state ppid …`; comm may hold spaces, so split after its `)`.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            let ppid = fields.next();
            if ppid != Some(me.as_str()) || matches!(state, Some("Z" | "X")) {
                return false;
            }
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            cmdline
                .split(|b| *b == 0)
                .any(|arg| arg == b"app-server" || arg == b"--input-format")
        })
        .map(|e| e.path())
        .collect()
}

/// Whether the process of `/proc/<pid>` holds a Codex rollout file open. A `codex app-server`
/// opens its thread's rollout while it answers `thread/resume` and keeps it open for its life,
/// so a live codex child without one is still launching.
pub fn holds_rollout(proc_dir: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(proc_dir.join("fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            target
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
        })
    })
}

/// Watches this process's codex children on a thread: the most seen at once that are still
/// launching (live and never yet seen with a rollout open: one being ended, which closes its
/// files first, has launched long before), and which ones were seen.
pub struct LaunchPeak {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicUsize>,
    seen: Arc<Mutex<HashSet<PathBuf>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LaunchPeak {
    /// Starts watching; `launched` are the children already known to have launched.
    pub fn start(launched: HashSet<PathBuf>) -> LaunchPeak {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(launched.clone()));
        let (s, p, n) = (stop.clone(), peak.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            let mut launched = launched;
            while !s.load(Ordering::SeqCst) {
                let children = live_child_dirs();
                for child in &children {
                    if !launched.contains(child) && holds_rollout(child) {
                        launched.insert(child.clone());
                    }
                }
                let launching = children.iter().filter(|d| !launched.contains(*d)).count();
                p.fetch_max(launching, Ordering::SeqCst);
                n.lock().unwrap().extend(children);
                // A sampling period, not a synchronisation: a codex launch takes hundreds of
                // milliseconds, and the peak is read at the end.
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        LaunchPeak {
            stop,
            peak,
            seen,
            thread: Some(thread),
        }
    }

    /// The most codex children seen launching at once so far.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    /// The codex children seen so far, whether or not still live.
    pub fn seen(&self) -> HashSet<PathBuf> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for LaunchPeak {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Watches [`live_children`] on a thread and keeps the most seen at once.
pub struct ChildPeak {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ChildPeak {
    pub fn start() -> ChildPeak {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                p.fetch_max(live_children(), Ordering::SeqCst);
                // A sampling period, not a synchronisation: the peak is read at the end.
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        ChildPeak {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    /// The most live children seen so far.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst).max(live_children())
    }
}

impl Drop for ChildPeak {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A model that calls `get_weather` when it is offered and has no output yet, and otherwise
/// answers `FINAL`.
pub async fn weather_model() -> switchboard_mock_model::MockModel {
    use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario, ToolCall, When};
    let call = Rule::new(
        When {
            tool_offered: Some("get_weather".into()),
            tool_output_present: Some(false),
            ..When::default()
        },
        Reply::tool_calls(vec![ToolCall::new(
            "get_weather",
            serde_json::json!({"city": "Paris"}),
        )]),
    );
    let scenario = Scenario::new(vec![call, Rule::from(Reply::text("FINAL"))]);
    MockModel::start(MockConfig::loopback().with_scenario(scenario))
        .await
        .unwrap()
}

/// Starts Run `run_id` on `session_id` with `text`.
pub async fn start_run(runtime: &LocalRuntime, session_id: &str, run_id: &str, text: &str) {
    use switchboard_protocol::InputPart;
    use switchboard_protocol::messages::ExecutionStart;
    let start = ExecutionStart {
        session_id: session_id.into(),
        run_id: run_id.into(),
        turn_id: format!("turn_{run_id}"),
        traceparent: None,
        input: vec![InputPart::InputText { text: text.into() }],
    };
    super::send(runtime, run_id, start).await;
}

/// Reads Run `run_id`'s frames until its `function_call`, returning the call's ID.
pub async fn until_call(runtime: &mut LocalRuntime, run_id: &str) -> String {
    use switchboard_protocol::RuntimeToCore;
    loop {
        let frame = super::next_frame(runtime).await;
        assert_eq!(frame.id.as_deref(), Some(run_id), "{frame:?}");
        match frame.message {
            RuntimeToCore::FunctionCall(call) => return call.call_id,
            RuntimeToCore::Done(done) => panic!("{run_id} ended before its call: {done:?}"),
            _ => {}
        }
    }
}

/// Answers `call_id` of Run `run_id`.
pub async fn answer(runtime: &LocalRuntime, run_id: &str, call_id: &str) {
    use switchboard_protocol::FunctionOutput;
    use switchboard_protocol::messages::FunctionResult;
    let result = FunctionResult {
        delivery_id: format!("del_{run_id}"),
        call_id: call_id.into(),
        success: true,
        output: Some(FunctionOutput::Text("sunny".into())),
        error: None,
    };
    super::send(runtime, run_id, result).await;
}

/// Waits (bounded) for the Runtime to report that Run `run_id` is queued for a slot.
pub async fn until_queued(
    notices: &mut tokio::sync::broadcast::Receiver<switchboard_runtime::Notice>,
    run_id: &str,
) {
    let queued = switchboard_runtime::Notice::Queued {
        run_id: run_id.into(),
    };
    tokio::time::timeout(super::WAIT, async {
        while notices.recv().await.unwrap() != queued {}
    })
    .await
    .expect("the Turn is queued");
}
