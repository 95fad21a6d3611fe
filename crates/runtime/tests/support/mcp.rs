//! Running Sessions with HTTP MCP servers on a LocalRuntime, on either harness, against the
//! mock model; and the leak scan.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use switchboard_mock_model::{MockConfig, MockModel, Scenario};
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::messages::{ExecutionPrepare, ExecutionStart, PreparationState};
use switchboard_protocol::{
    ExecutionControls, InputPart, McpServer, ModelProviderConfig, RuntimeToCore,
    SessionConfiguration,
};
use switchboard_runtime::install::{self, HarnessInstall};
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions};

use super::{next_frame, scratch, send, until_done};

/// The install row of a harness.
pub fn row(harness: HarnessId) -> &'static HarnessInstall {
    match harness {
        HarnessId::Codex => &install::CODEX,
        _ => &install::CLAUDE_CODE,
    }
}

/// The pinned binary of `harness`, or `None` with a loud SKIPPED line outside CI.
pub fn binary(harness: HarnessId, test: &str) -> Option<PathBuf> {
    let data_dir = scratch("locate-");
    let located = Locator::from_env(data_dir.path()).locate(row(harness));
    if located.exists {
        return Some(located.path);
    }
    let message = format!("{} binary not found", row(harness).name);
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}

/// A Runtime that runs `harness` from `binary`.
pub fn runtime(harness: HarnessId, binary: PathBuf, state: &Path) -> LocalRuntime {
    runtime_evicting_after(harness, binary, state, Duration::from_secs(300))
}

/// [`runtime`] that evicts an idle executor after `idle`.
pub fn runtime_evicting_after(
    harness: HarnessId,
    binary: PathBuf,
    state: &Path,
    idle: Duration,
) -> LocalRuntime {
    let locator = Locator::new(state).with_explicit(harness, binary);
    let options = RuntimeOptions {
        idle_timeout: idle,
        heartbeat_interval: Duration::from_secs(30),
        ..RuntimeOptions::for_data_dir(state)
    };
    LocalRuntime::start(Arc::new(Registry::standard(locator)), options)
}

pub async fn model(scenario: Scenario) -> MockModel {
    MockModel::start(MockConfig::loopback().with_scenario(scenario))
        .await
        .unwrap()
}

pub fn server(label: &str, url: &str, allowed: Option<&[&str]>) -> McpServer {
    McpServer {
        server_label: label.into(),
        server_url: url.into(),
        headers: Map::new(),
        allowed_tools: allowed.map(|a| a.iter().map(|s| (*s).to_owned()).collect()),
        required: false,
        bearer: None,
    }
}

/// A Session on `harness` against `model` with `servers`.
pub fn configuration(
    harness: HarnessId,
    model: &MockModel,
    servers: Vec<McpServer>,
) -> SessionConfiguration {
    let (protocol, base_url, name) = match harness {
        HarnessId::Codex => (
            ProviderProtocol::Responses,
            format!("{}/v1", model.base_url()),
            "gpt-fake",
        ),
        _ => (
            ProviderProtocol::Anthropic,
            model.base_url(),
            "claude-fake-1",
        ),
    };
    SessionConfiguration {
        harness,
        model: name.into(),
        instructions: Some("answer briefly".into()),
        model_provider: ModelProviderConfig {
            protocol,
            base_url,
            api_key: "sk-test-key".into(),
            context_window: None,
            max_output_tokens: Some(4096),
        },
        function_tools: vec![],
        tool_search: false,
        execution_controls: ExecutionControls::default(),
        mcp_servers: servers,
        mcp_stdio_servers: vec![],
        mcp_environment_servers: vec![],
        harness_config: None,
        workspace: None,
    }
}

/// Sends `execution_prepare`; the final state and its error.
pub async fn prepare(
    runtime: &mut LocalRuntime,
    session_id: &str,
    configuration: SessionConfiguration,
) -> (PreparationState, Option<String>) {
    let prepare = ExecutionPrepare {
        session_id: session_id.into(),
        configuration,
    };
    send(runtime, session_id, prepare).await;
    loop {
        let frame = next_frame(runtime).await;
        let RuntimeToCore::PreparationStatus(status) = frame.message else {
            panic!("expected preparation_status, got {frame:?}");
        };
        // `queued`: waiting for a process slot; the outcome follows.
        if !matches!(
            status.state,
            PreparationState::Preparing | PreparationState::Queued
        ) {
            return (status.state, status.error);
        }
    }
}

/// Runs one Turn to its `done`.
pub async fn turn(runtime: &mut LocalRuntime, session_id: &str, text: &str) -> Vec<RuntimeToCore> {
    run(runtime, session_id, "run_1", text).await
}

/// Runs Turn `run_id` to its `done`.
pub async fn run(
    runtime: &mut LocalRuntime,
    session_id: &str,
    run_id: &str,
    text: &str,
) -> Vec<RuntimeToCore> {
    let start = ExecutionStart {
        session_id: session_id.into(),
        run_id: run_id.into(),
        turn_id: format!("turn_{run_id}"),
        traceparent: None,
        input: vec![InputPart::InputText { text: text.into() }],
    };
    send(runtime, run_id, start).await;
    until_done(runtime, run_id).await
}

/// The request bodies the model received.
pub fn model_requests(model: &MockModel) -> Vec<Value> {
    model
        .journal()
        .into_iter()
        .filter(|r| r["method"] == "POST" && r["body"].is_object())
        .filter(|r| {
            let path = r["path"].as_str().unwrap_or_default();
            path.ends_with("/responses") || path.ends_with("/messages")
        })
        .map(|r| r["body"].clone())
        .collect()
}

/// Every tool name offered in a request, namespaced tools as `<namespace>__<name>`.
pub fn offered(body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        if tool["type"] == "namespace" {
            let ns = tool["name"].as_str().unwrap_or_default();
            for inner in tool["tools"].as_array().into_iter().flatten() {
                names.push(format!(
                    "{ns}__{}",
                    inner["name"].as_str().unwrap_or_default()
                ));
            }
        } else if let Some(name) = tool["name"].as_str() {
            names.push(name.to_owned());
        }
    }
    names
}

/// A URL where nothing listens (a port bound, then released).
pub fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/mcp")
}

/// Every place `needle` must not be: files under `dirs`, and the environment and command line
/// of every process on the host (the harness processes among them). Returns the hits.
pub fn leak_scan(needle: &str, dirs: &[&Path]) -> Vec<String> {
    let mut hits = Vec::new();
    for dir in dirs {
        scan_dir(dir, needle.as_bytes(), &mut hits);
    }
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        for file in ["environ", "cmdline"] {
            if let Ok(bytes) = std::fs::read(entry.path().join(file))
                && contains(&bytes, needle.as_bytes())
            {
                hits.push(format!("/proc/{pid}/{file}"));
            }
        }
    }
    hits
}

fn scan_dir(dir: &Path, needle: &[u8], hits: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            scan_dir(&path, needle, hits);
        } else if kind.is_file()
            && let Ok(bytes) = std::fs::read(&path)
            && contains(&bytes, needle)
        {
            hits.push(path.display().to_string());
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The `mcp_call` frames of a Turn.
pub fn mcp_calls(frames: &[RuntimeToCore]) -> Vec<switchboard_protocol::McpCall> {
    frames
        .iter()
        .filter_map(|f| match f {
            RuntimeToCore::McpCall(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

/// Prepares `session_id` on `runtime` (it must become ready) and runs one Turn with `text`,
/// which must complete; the Turn's frames. The Run is `run_<session_id>`: the Runtime frees a
/// Run's id only after it has sent its `done`, so Sessions prepared one after another each
/// need their own.
pub async fn prepared_turn(
    runtime: &mut LocalRuntime,
    session_id: &str,
    config: SessionConfiguration,
    text: &str,
) -> Vec<RuntimeToCore> {
    let (prepared, error) = prepare(runtime, session_id, config).await;
    assert_eq!(prepared, PreparationState::Ready, "{error:?}");
    let frames = run(runtime, session_id, &format!("run_{session_id}"), text).await;
    let Some(RuntimeToCore::Done(done)) = frames.last() else {
        panic!("{frames:?}")
    };
    assert_eq!(
        done.outcome,
        switchboard_protocol::messages::TurnOutcome::Completed,
        "{frames:?}"
    );
    frames
}

/// The Turn's one MCP call, reported in progress and then completed on `label`'s tool `name`
/// with `output`; the completed report.
pub fn completed_call(
    frames: &[RuntimeToCore],
    label: &str,
    name: &str,
    output: &str,
) -> switchboard_protocol::McpCall {
    let calls = mcp_calls(frames);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        calls[0].status,
        switchboard_protocol::McpCallStatus::InProgress
    );
    let call = calls[1].clone();
    assert_eq!(
        call.status,
        switchboard_protocol::McpCallStatus::Completed,
        "{call:?}"
    );
    assert_eq!(
        (call.server_label.as_str(), call.name.as_str()),
        (label, name)
    );
    assert_eq!(call.output.as_deref(), Some(output), "{call:?}");
    call
}

/// Captures this test process's logs (every level) from now on; nextest runs each test in its
/// own process, so the capture is the test's alone.
pub fn capture_logs() -> Arc<std::sync::Mutex<Vec<u8>>> {
    #[derive(Clone)]
    struct Sink(Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Sink(buffer.clone());
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || sink.clone())
        .try_init();
    buffer
}
