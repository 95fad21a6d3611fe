//! Test support: find the pinned claude binary, start the project's mock model, build configs,
//! and read Turns.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use switchboard_claude::ClaudeAdapter;
use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario, When};
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::messages::MessagePhase;
use switchboard_protocol::{
    Adapter, AdapterEvent, ExecutionControls, FunctionOutput, FunctionResultContent,
    FunctionToolSpec, InputPart, ModelProviderConfig, PrepareRequest, SessionConfiguration,
    SessionExecutor, TurnHandle, TurnRequest,
};

/// Bound on any single wait in these tests.
pub const WAIT: Duration = Duration::from_secs(60);

/// The claude binary, or `None` (with a loud SKIPPED line) outside CI when it is not installed.
/// In CI (`CI=true`) a missing binary fails the test.
pub fn claude_binary(test: &str) -> Option<PathBuf> {
    let repo_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if let Some(path) = switchboard_claude::binary::locate(&repo_root) {
        return Some(path);
    }
    let message = format!(
        "claude binary not found (set {} or run scripts/install-harnesses.sh)",
        switchboard_claude::binary::BINARY_ENV
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}

/// The mock model with `scenario` (`None`: its built-in default).
pub async fn mock_model(scenario: Option<Scenario>) -> MockModel {
    let config = match scenario {
        Some(scenario) => MockConfig::loopback().with_scenario(scenario),
        None => MockConfig::loopback(),
    };
    MockModel::start(config).await.expect("mock model starts")
}

/// A rule for the `n`-th model request (1-based).
pub fn on_request(n: u64, reply: Reply) -> Rule {
    Rule::new(
        When {
            request: Some(n),
            ..When::default()
        },
        reply,
    )
}

pub fn get_weather() -> FunctionToolSpec {
    FunctionToolSpec {
        name: "get_weather".into(),
        description: "Get the weather for a city".into(),
        parameters: serde_json::from_str(
            r#"{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"number","maximum":10.50}},"required":["city"],"additionalProperties":false}"#,
        )
        .unwrap(),
        defer_loading: false,
    }
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
        harness_config: None,
    }
}

/// Prepares an executor in a fresh state directory (kept alive by the returned guard). The
/// guard comes first so that `let (_state, executor) = …` drops the executor, and with it the
/// claude process, before the directory is removed.
pub async fn prepare(
    binary: PathBuf,
    config: SessionConfiguration,
) -> (tempfile::TempDir, Box<dyn SessionExecutor>) {
    let state = tempfile::Builder::new()
        .prefix("claude-session-")
        .tempdir_in(state_parent())
        .unwrap();
    let executor = prepare_in(binary, config, state.path()).await;
    (state, executor)
}

/// Prepares an executor on an existing state directory.
pub async fn prepare_in(
    binary: PathBuf,
    config: SessionConfiguration,
    state_dir: &Path,
) -> Box<dyn SessionExecutor> {
    let adapter = ClaudeAdapter::new(binary).with_turn_deadline(Duration::from_secs(45));
    let request = PrepareRequest {
        session_id: "sess_test".into(),
        configuration: config,
        state_dir: state_dir.to_owned(),
    };
    tokio::time::timeout(WAIT, adapter.prepare(request))
        .await
        .expect("prepare timed out")
        .expect("prepare")
}

/// State directories live under the target dir, next to the build, not in the shared /tmp.
pub fn state_parent() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/claude-test-state");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The next event, bounded.
pub async fn next_event(turn: &mut TurnHandle) -> AdapterEvent {
    tokio::time::timeout(WAIT, turn.events.recv())
        .await
        .expect("timed out waiting for an adapter event")
        .expect("event stream closed before a terminal event")
}

/// Root Turn `n` (`run_n`/`turn_n`) with one text part.
pub fn user_turn(n: u32, text: &str) -> TurnRequest {
    TurnRequest {
        run_id: format!("run_{n}"),
        turn_id: format!("turn_{n}"),
        input: vec![InputPart::InputText { text: text.into() }],
    }
}

pub fn text_result(text: &str) -> FunctionResultContent {
    FunctionResultContent {
        success: true,
        output: Some(FunctionOutput::Text(text.into())),
        error: None,
    }
}

/// Skips events until the next function call; its call ID.
pub async fn next_call_id(turn: &mut TurnHandle) -> String {
    loop {
        match next_event(turn).await {
            AdapterEvent::FunctionCall { call_id, .. } => return call_id,
            event => assert!(!event.is_terminal(), "the Turn ended first: {event:?}"),
        }
    }
}

/// Reads events until the terminal one; returns them all (terminal last).
pub async fn until_terminal(turn: &mut TurnHandle) -> Vec<AdapterEvent> {
    let mut events = Vec::new();
    loop {
        let event = next_event(turn).await;
        let terminal = event.is_terminal();
        events.push(event);
        if terminal {
            return events;
        }
    }
}

/// The completed messages: (item id, phase, text).
pub fn completed_messages(events: &[AdapterEvent]) -> Vec<(String, MessagePhase, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AdapterEvent::MessageCompleted {
                item_id,
                phase,
                text,
            } => Some((item_id.clone(), *phase, text.clone())),
            _ => None,
        })
        .collect()
}

pub fn final_answer(events: &[AdapterEvent]) -> Option<String> {
    completed_messages(events)
        .into_iter()
        .rev()
        .find(|(_, phase, _)| *phase == MessagePhase::FinalAnswer)
        .map(|(_, _, text)| text)
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
