//! Test support: find the pinned claude binary, run Sessions on the project's mock model, build
//! configs, and read what the model was sent. What is not claude's (bounded event reads, the
//! mock model, …) is the adapter kit's `test_support`, re-exported here.

// Shared by the test modules (each uses some), and test code: a failed step fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use switchboard_claude::ClaudeAdapter;
use switchboard_mock_model::{MockModel, Reply, Scenario, ToolCall};
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::{
    ExecutionControls, FunctionToolSpec, ModelProviderConfig, SessionConfiguration,
    SessionExecutor, TurnHandle,
};

pub use switchboard_adapter_kit::test_support::*;

/// The claude binary, or `None` (with a loud SKIPPED line) outside CI when it is not installed.
/// In CI (`CI=true`) a missing binary fails the test.
pub fn claude_binary(test: &str) -> Option<PathBuf> {
    binary_or_skip(test, "claude", &switchboard_claude::binary::PINNED)
}

/// The adapter the tests use (a Turn deadline below the tests' own bound).
pub fn adapter(binary: PathBuf) -> ClaudeAdapter {
    ClaudeAdapter::new(binary).with_turn_deadline(Duration::from_secs(45))
}

pub fn configuration(
    base_url: &str,
    functions: Vec<FunctionToolSpec>,
    controls: ExecutionControls,
) -> SessionConfiguration {
    SessionConfiguration {
        harness: HarnessId::ClaudeCode,
        model: "claude-fake-1".into(),
        instructions: Some("SWITCHBOARD-INSTRUCTIONS: answer briefly.".into()),
        model_provider: ModelProviderConfig {
            protocol: ProviderProtocol::Anthropic,
            base_url: base_url.into(),
            api_key: "sk-ant-test-key".into(),
            context_window: None,
            max_output_tokens: Some(4096),
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
    prepare_fresh(&adapter(binary), config, "claude").await
}

/// A Session on the mock model. The fields drop in order: the executor (and its claude)
/// first, then its state directory, then the model.
pub struct MockSession {
    pub executor: Box<dyn SessionExecutor>,
    #[allow(dead_code)] // held for its drop
    pub state: tempfile::TempDir,
    pub model: MockModel,
}

/// Starts the mock model with `scenario` (`None`: its default) and prepares a Session on it with
/// `functions` and `controls`.
pub async fn session(
    binary: PathBuf,
    scenario: Option<Scenario>,
    functions: Vec<FunctionToolSpec>,
    controls: ExecutionControls,
) -> MockSession {
    session_with(binary, scenario, |base_url| {
        configuration(base_url, functions, controls)
    })
    .await
}

/// A [`session`] on `scenario` that offers `get_weather`.
pub async fn function_session(binary: PathBuf, scenario: Scenario) -> MockSession {
    session(
        binary,
        Some(scenario),
        vec![get_weather()],
        ExecutionControls::default(),
    )
    .await
}

/// [`session`] with the configuration `config(base_url)`.
pub async fn session_with(
    binary: PathBuf,
    scenario: Option<Scenario>,
    config: impl FnOnce(&str) -> SessionConfiguration,
) -> MockSession {
    let model = mock_model(scenario).await;
    let (state, executor) = prepare(binary, config(&model.base_url())).await;
    MockSession {
        executor,
        state,
        model,
    }
}

impl MockSession {
    /// Starts root Turn `n` with one text part.
    pub async fn turn(&self, n: u32, text: &str) -> TurnHandle {
        self.executor.start_turn(user_turn(n, text)).await.unwrap()
    }

    /// Journal entries of model calls (`POST /v1/messages`).
    pub fn model_calls(&self) -> Vec<Value> {
        model_calls(&self.model.journal())
    }

    /// The request bodies of model calls.
    pub fn model_requests(&self) -> Vec<Value> {
        model_requests(&self.model.journal())
    }

    /// Waits until claude has called the model: a Turn is then certainly under way.
    pub async fn wait_for_model_call(&self) {
        tokio::time::timeout(WAIT, async {
            while self.model_calls().is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("claude never called the model");
    }
}

/// The model calls the function (`get_weather` for `city`).
pub fn weather_call(city: &str) -> Reply {
    Reply::tool_calls(vec![ToolCall::new(
        "mcp__functions__get_weather",
        serde_json::json!({ "city": city }),
    )])
}

/// A Session whose model calls `get_weather` for `city` at its first request, and its first
/// Turn (`prompt`) with the call pending: `(session, turn, call_id)`.
pub async fn pending_weather_call(
    binary: PathBuf,
    city: &str,
    prompt: &str,
) -> (MockSession, TurnHandle, String) {
    let scenario = Scenario::new(vec![on_request(1, weather_call(city))]);
    let session = function_session(binary, scenario).await;
    let mut turn = session.turn(1, prompt).await;
    let call_id = next_call_id(&mut turn).await;
    (session, turn, call_id)
}

/// Journal entries of model calls (`POST /v1/messages`).
pub fn model_calls(journal: &[Value]) -> Vec<Value> {
    journal
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"].as_str() == Some("/v1/messages"))
        .cloned()
        .collect()
}

/// The request bodies of model calls.
pub fn model_requests(journal: &[Value]) -> Vec<Value> {
    model_calls(journal)
        .into_iter()
        .map(|r| r["body"].clone())
        .collect()
}

/// Tool names offered in a Messages request body.
pub fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The `tool_result` block of a Messages request body's last message.
pub fn last_tool_result(body: &Value) -> Value {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_result")
        .unwrap()
        .clone()
}

/// The sum of `usage.<key>` the model reported over `calls`.
pub fn reported_usage(calls: &[Value], key: &str) -> u64 {
    calls
        .iter()
        .map(|c| c["reply"]["usage"][key].as_u64().unwrap())
        .sum()
}
