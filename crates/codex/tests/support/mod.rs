//! Test support: find the pinned codex binary, run a fake Responses provider, build configs.
//! What is not codex's (bounded event reads, the mock model, …) is the adapter kit's
//! `test_support`, re-exported here.
//!
//! `fake_responses` is a small scripted Responses server that mirrors
//! `shared/lab/fake_responses.py` and journals every request body.

// Shared by the test modules (each uses some), and test code: a failed step fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod fake_responses;

use fake_responses::{FakeResponses, Script};

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::{
    ExecutionControls, FunctionToolSpec, ModelProviderConfig, SessionConfiguration, SessionExecutor,
};

pub use switchboard_adapter_kit::test_support::*;

/// The codex binary, or `None` (with a loud SKIPPED line) outside CI when it is not installed.
/// In CI (`CI=true`) a missing binary fails the test.
pub fn codex_binary(test: &str) -> Option<PathBuf> {
    binary_or_skip(test, "codex", &switchboard_codex::binary::PINNED)
}

pub fn configuration(
    base_url: &str,
    functions: Vec<FunctionToolSpec>,
    controls: ExecutionControls,
) -> SessionConfiguration {
    SessionConfiguration {
        harness: HarnessId::Codex,
        model: "gpt-fake".into(),
        instructions: Some("SWITCHBOARD-INSTRUCTIONS: answer briefly.".into()),
        model_provider: ModelProviderConfig {
            protocol: ProviderProtocol::Responses,
            base_url: format!("{base_url}/v1"),
            api_key: "sk-test-key".into(),
            context_window: None,
            max_output_tokens: None,
        },
        function_tools: functions,
        tool_search: false,
        execution_controls: controls,
        mcp_servers: vec![],
        mcp_stdio_servers: vec![],
        mcp_environment_servers: vec![],
        harness_config: None,
        workspace: None,
    }
}

/// Prepares an executor in a fresh state directory (see [`prepare_fresh`]).
pub async fn prepare(
    binary: PathBuf,
    config: SessionConfiguration,
) -> (tempfile::TempDir, Box<dyn SessionExecutor>) {
    let adapter = CodexAdapter::new(binary).with_turn_deadline(Duration::from_secs(45));
    prepare_fresh(&adapter, config, "codex").await
}

/// A scripted provider whose model calls `get_weather` with `arguments`, then answers.
pub async fn weather_model(arguments: &str) -> FakeResponses {
    FakeResponses::start(Script::Call {
        name: "get_weather".into(),
        arguments: arguments.into(),
    })
    .await
}

/// A Session on codex against the provider at `base_url`, with `functions` and no execution
/// controls, prepared in a fresh state directory.
pub async fn session(
    binary: PathBuf,
    base_url: &str,
    functions: Vec<FunctionToolSpec>,
) -> (tempfile::TempDir, Box<dyn SessionExecutor>) {
    prepare(
        binary,
        configuration(base_url, functions, ExecutionControls::default()),
    )
    .await
}

/// Requests the provider got that were model calls (`POST …/responses`).
pub fn model_requests(journal: &[Value]) -> Vec<Value> {
    journal
        .iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/responses"))
        })
        .map(|r| r["body"].clone())
        .collect()
}

/// The `function_call_output` items in a model request's input.
pub fn function_call_outputs(request: &Value) -> Vec<Value> {
    request["input"]
        .as_array()
        .expect("a model request has an input list")
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .cloned()
        .collect()
}

/// A codex adapter whose shareable Sessions share processes, their homes in a fresh directory
/// (the guard), and the host, to count its processes.
pub fn sharing_adapter(
    binary: PathBuf,
) -> (
    tempfile::TempDir,
    CodexAdapter,
    std::sync::Arc<switchboard_codex::host::ProcessHost>,
) {
    let root = state_dir("codex-shared");
    let codex = switchboard_codex::Codex::default().with_shared_processes(root.path().to_owned());
    let host = codex.host().expect("sharing is on").clone();
    let adapter =
        CodexAdapter::with_harness(binary, codex).with_turn_deadline(Duration::from_secs(45));
    (root, adapter, host)
}

/// The configuration of a sharing test's Session `name`: its own instructions and, beside
/// `get_weather`, a tool only it offers (`only_<name>`).
pub fn named_configuration(base_url: &str, name: &str) -> SessionConfiguration {
    let mut config = configuration(
        base_url,
        vec![get_weather(), only_tool(name)],
        ExecutionControls::default(),
    );
    config.instructions = Some(format!("INSTRUCTIONS-OF-{name}"));
    config
}

/// A tool only Session `name` offers.
pub fn only_tool(name: &str) -> FunctionToolSpec {
    FunctionToolSpec {
        name: format!("only_{name}"),
        ..get_weather()
    }
}

/// The model requests (bodies) made for Session `name`: those carrying its instructions.
pub fn requests_of(journal: &[Value], name: &str) -> Vec<Value> {
    let marker = format!("INSTRUCTIONS-OF-{name}");
    model_requests(journal)
        .into_iter()
        .filter(|body| body.to_string().contains(&marker))
        .collect()
}

/// The names of the tools a model request offers.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// Whether `pid` is a live (not zombie) process.
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
        !matches!(state, Some(Some('Z' | 'X')))
    })
}

/// Starts root Turn `n` with `text` and waits for its first function call: the Turn and the
/// call's id.
pub async fn pending_call(
    executor: &dyn SessionExecutor,
    n: u32,
    text: &str,
) -> (switchboard_protocol::TurnHandle, String) {
    let mut turn = start_user_turn(executor, n, text).await;
    let call_id = next_call_id(&mut turn).await;
    (turn, call_id)
}

/// Sends `signal` (`KILL`, `STOP`, …) to process `pid`.
pub fn signal(pid: u32, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal} {pid}");
}

/// Polls (bounded by [`WAIT`]) until `pid` no longer runs.
pub async fn until_gone(pid: u32) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while running(pid) {
        assert!(tokio::time::Instant::now() < deadline, "{pid} still runs");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Two Sessions, `alpha` and `beta`, sharing one app-server, against one scripted model that
/// calls `get_weather` with `arguments`. Fields drop in order: the executors (their processes)
/// before their state directories and the shared home.
pub struct SharingPair {
    pub alpha: Box<dyn SessionExecutor>,
    pub beta: Box<dyn SessionExecutor>,
    pub host: std::sync::Arc<switchboard_codex::host::ProcessHost>,
    pub model: FakeResponses,
    _states: [tempfile::TempDir; 3],
}

impl SharingPair {
    /// The pair, or `None` (SKIPPED) without the codex binary.
    pub async fn start(test: &str, arguments: &str) -> Option<SharingPair> {
        let binary = codex_binary(test)?;
        let model = weather_model(arguments).await;
        let (root, adapter, host) = sharing_adapter(binary);
        let url = model.base_url();
        let (a_state, alpha) =
            prepare_fresh(&adapter, named_configuration(&url, "alpha"), "codex").await;
        let (b_state, beta) =
            prepare_fresh(&adapter, named_configuration(&url, "beta"), "codex").await;
        assert_eq!(host.process_ids().len(), 1, "one process for both");
        Some(SharingPair {
            alpha,
            beta,
            host,
            model,
            _states: [a_state, b_state, root],
        })
    }

    /// Each Session's Turn 3 (`<name> turn three`) runs, and both run on one new process, not
    /// on `old`.
    pub async fn both_run_on_a_new_process(&self, old: u32) {
        weather_turn(self.alpha.as_ref(), 3, "alpha turn three").await;
        weather_turn(self.beta.as_ref(), 3, "beta turn three").await;
        let after = self.host.process_ids();
        assert_eq!(after.len(), 1);
        assert_ne!(after[0], old);
    }

    /// The directory the shared processes' homes are in.
    pub fn shared_root(&self) -> &std::path::Path {
        self._states[2].path()
    }

    /// [`SharingPair::start`], then a first function Turn of each (`<name> turn one`).
    pub async fn after_a_turn_each(test: &str, arguments: &str) -> Option<SharingPair> {
        let pair = SharingPair::start(test, arguments).await?;
        weather_turn(pair.alpha.as_ref(), 1, "alpha turn one").await;
        weather_turn(pair.beta.as_ref(), 1, "beta turn one").await;
        Some(pair)
    }
}
