//! Test support: find the pinned codex binary, run a fake Responses provider, build configs.
//!
//! The project's mock model crate (`switchboard-mock-model`) is still being written; until it
//! compiles, `fake_responses` is a small scripted Responses server that mirrors
//! `shared/lab/fake_responses.py` and journals every request body.

#![allow(dead_code)]

pub mod fake_responses;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::{
    Adapter, AdapterEvent, ExecutionControls, FunctionToolSpec, InputPart, ModelProviderConfig,
    PrepareRequest, SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest,
};

/// Bound on any single wait in these tests.
pub const WAIT: Duration = Duration::from_secs(60);

/// The codex binary, or `None` (with a loud SKIPPED line) outside CI when it is not installed.
/// In CI (`CI=true`) a missing binary fails the test.
pub fn codex_binary(test: &str) -> Option<PathBuf> {
    let repo_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if let Some(path) = switchboard_codex::binary::locate(&repo_root) {
        return Some(path);
    }
    let message = format!(
        "codex binary not found (set {} or run scripts/install-harnesses.sh)",
        switchboard_codex::binary::BINARY_ENV
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
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
        harness_config: None,
    }
}

/// Prepares an executor in a fresh state directory (kept alive by the returned guard).
pub async fn prepare(
    binary: PathBuf,
    config: SessionConfiguration,
) -> (Box<dyn SessionExecutor>, tempfile::TempDir) {
    let state = tempfile::Builder::new()
        .prefix("codex-session-")
        .tempdir_in(state_parent())
        .unwrap();
    let adapter = CodexAdapter::new(binary).with_turn_deadline(Duration::from_secs(45));
    let request = PrepareRequest {
        session_id: "sess_test".into(),
        configuration: config,
        state_dir: state.path().to_owned(),
    };
    let executor = tokio::time::timeout(WAIT, adapter.prepare(request))
        .await
        .expect("prepare timed out")
        .expect("prepare");
    (executor, state)
}

/// State directories live under the target dir, not /tmp (codex refuses helper binaries there).
fn state_parent() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/codex-test-state");
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

/// Skips events until the next function call; its call ID.
pub async fn next_call_id(turn: &mut TurnHandle) -> String {
    loop {
        if let AdapterEvent::FunctionCall { call_id, .. } = next_event(turn).await {
            return call_id;
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

pub fn final_answer(events: &[AdapterEvent]) -> Option<String> {
    events.iter().rev().find_map(|e| match e {
        AdapterEvent::MessageCompleted {
            phase: switchboard_protocol::messages::MessagePhase::FinalAnswer,
            text,
            ..
        } => Some(text.clone()),
        _ => None,
    })
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
