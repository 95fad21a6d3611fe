//! Helpers for the adapters' integration tests, which run against the real pinned binaries
//! (feature `test-support`, for dev-dependencies only).
//!
//! A test needs its harness's executable, installed by `scripts/install-harnesses.sh` or named
//! by the adapter's environment variable. In CI (`CI=true`) a missing executable fails the test;
//! elsewhere the test returns early with a loud `SKIPPED` line, so that a machine without the
//! harnesses still runs everything else. Every wait on a Turn is bounded by [`WAIT`], so a Turn
//! that never ends fails its test instead of hanging it. The model is the project's mock model
//! ([`mock_model`]) unless an adapter's tests need something else.

// Test code compiled behind a feature rather than `cfg(test)`: a failed step fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use switchboard_mock_model::{MockConfig, MockModel, Reply, Rule, Scenario, When};
use switchboard_protocol::configuration::{ContextSize, WebSearchMode};
use switchboard_protocol::messages::{MessagePhase, WebSearchAction, WebSearchStatus};
use switchboard_protocol::{
    Adapter, AdapterEvent, ExecutionControls, FunctionOutput, FunctionResultContent,
    FunctionToolSpec, InputPart, OutputFormat, PrepareRequest, ProcessPlacement, Receipt,
    SessionConfiguration, SessionExecutor, TurnHandle, TurnRequest, WebSearchControl,
};

use crate::binary::PinnedBinary;

/// Bound on any single wait in these tests.
pub const WAIT: Duration = Duration::from_secs(60);

/// The repository root (where `.harnesses/` and `target/` are).
pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Canonical: a sandboxed harness resolves its state paths without the `..` of the host.
    root.canonicalize().unwrap_or(root)
}

/// The `name` harness's executable for the test `test`, or `None` (with a loud SKIPPED line)
/// outside CI when it is not installed. In CI (`CI=true`) a missing executable fails the test.
pub fn binary_or_skip(test: &str, name: &str, pinned: &PinnedBinary) -> Option<PathBuf> {
    if let Some(path) = pinned.locate(&repo_root()) {
        return Some(path);
    }
    let message = format!(
        "{name} binary not found (set {} or run scripts/install-harnesses.sh)",
        pinned.binary_env
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}

/// A folder under the target directory for the tests' state directories: next to the build,
/// not in the shared /tmp (where codex refuses to run helper binaries).
fn state_parent(name: &str) -> PathBuf {
    let dir = repo_root().join("target").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Prepares an executor in a fresh state directory under `target/<harness>-test-state` (kept
/// alive by the returned guard). The guard comes first, so that `let (_state, executor) = …`
/// drops the executor, and with it the native process, before the directory is removed.
pub async fn prepare_fresh(
    adapter: &dyn Adapter,
    config: SessionConfiguration,
    harness: &str,
) -> (tempfile::TempDir, Box<dyn SessionExecutor>) {
    let state = tempfile::Builder::new()
        .prefix(&format!("{harness}-session-"))
        .tempdir_in(state_parent(&format!("{harness}-test-state")))
        .unwrap();
    let executor = prepare_in(adapter, config, state.path()).await;
    (state, executor)
}

/// A git checkout with one commit, standing for the host's (the directory `serve` runs in), with
/// a Session's state directory inside it, where a data directory would put it.
pub struct HostCheckout {
    /// The checkout, in a fresh folder under `target/<harness>-checkout-test-state`.
    pub dir: tempfile::TempDir,
    /// Its `HEAD` commit.
    pub head: String,
    /// The Session's state directory (created, empty): `data/sessions/sess_1` in the checkout.
    pub state: PathBuf,
}

/// A [`HostCheckout`], for a test that checks the harness reports nothing of it.
pub fn host_checkout(harness: &str) -> HostCheckout {
    let checkout = state_dir(&format!("{harness}-checkout"));
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=Host", "-c", "user.email=host@example.com"])
            .args(args)
            .current_dir(checkout.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    git(&["init", "-q"]);
    std::fs::write(
        checkout.path().join("HOST-SECRET.md"),
        "the host's own file\n",
    )
    .unwrap();
    git(&["add", "HOST-SECRET.md"]);
    git(&["commit", "-q", "-m", "host commit"]);
    let head = git(&["rev-parse", "HEAD"]);
    let state = checkout.path().join("data/sessions/sess_1");
    std::fs::create_dir_all(&state).unwrap();
    HostCheckout {
        dir: checkout,
        head,
        state,
    }
}

/// Prepares an executor on `state_dir`, bounded by [`WAIT`].
pub async fn prepare_in(
    adapter: &dyn Adapter,
    config: SessionConfiguration,
    state_dir: &Path,
) -> Box<dyn SessionExecutor> {
    prepare_placed(adapter, config, state_dir, None).await
}

/// A fresh state directory under `target/<harness>-test-state`, for a test that prepares its
/// executor itself.
pub fn state_dir(harness: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("{harness}-session-"))
        .tempdir_in(state_parent(&format!("{harness}-test-state")))
        .unwrap()
}

/// Prepares an executor on `state_dir` with its processes at `placement`, bounded by [`WAIT`].
pub async fn prepare_placed(
    adapter: &dyn Adapter,
    config: SessionConfiguration,
    state_dir: &Path,
    placement: Option<ProcessPlacement>,
) -> Box<dyn SessionExecutor> {
    let request = PrepareRequest {
        session_id: "sess_test".into(),
        configuration: config,
        state_dir: state_dir.to_owned(),
        placement,
    };
    let prepared = tokio::time::timeout(WAIT, adapter.prepare(request))
        .await
        .expect("prepare timed out");
    prepared.unwrap_or_else(|error| panic!("prepare: {error:?}\n{}", stderr_logs(state_dir)))
}

/// What the harness wrote to stderr in `state_dir` (its `*-stderr.log`), for a failure message.
fn stderr_logs(state_dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(state_dir) else {
        return String::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with("-stderr.log"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The project's mock model with `scenario` (`None`: its built-in default).
pub async fn mock_model(scenario: Option<Scenario>) -> MockModel {
    let config = match scenario {
        Some(scenario) => MockConfig::loopback().with_scenario(scenario),
        None => MockConfig::loopback(),
    };
    MockModel::start(config).await.expect("mock model starts")
}

/// A mock model rule for the `n`-th model request (1-based).
pub fn on_request(n: u64, reply: Reply) -> Rule {
    Rule::new(
        When {
            request: Some(n),
            ..When::default()
        },
        reply,
    )
}

/// The function the tests offer.
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

/// Execution controls that ask for structured output with `schema`.
pub fn output_schema(schema: serde_json::Value) -> ExecutionControls {
    ExecutionControls {
        output_format: Some(OutputFormat::json_schema(schema)),
        ..Default::default()
    }
}

/// Execution controls with web search in `mode`, at the default context size and with no
/// domains or location.
pub fn web_search(mode: WebSearchMode) -> ExecutionControls {
    ExecutionControls {
        web_search: Some(WebSearchControl {
            mode,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        }),
        ..Default::default()
    }
}

/// Root Turn `n` (`run_n`/`turn_n`) with one text part.
pub fn user_turn(n: u32, text: &str) -> TurnRequest {
    TurnRequest {
        run_id: format!("run_{n}"),
        turn_id: format!("turn_{n}"),
        input: vec![InputPart::InputText { text: text.into() }],
    }
}

/// Starts Turn `n` on the user message `text`.
pub async fn start_user_turn(executor: &dyn SessionExecutor, n: u32, text: &str) -> TurnHandle {
    executor
        .start_turn(user_turn(n, text))
        .await
        .expect("the Turn starts")
}

/// A successful text result.
pub fn text_result(text: &str) -> FunctionResultContent {
    FunctionResultContent {
        success: true,
        output: Some(FunctionOutput::Text(text.into())),
        error: None,
    }
}

/// The next event, bounded.
pub async fn next_event(turn: &mut TurnHandle) -> AdapterEvent {
    tokio::time::timeout(WAIT, turn.events.recv())
        .await
        .expect("timed out waiting for an adapter event")
        .expect("event stream closed before a terminal event")
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

/// The Turn's first function call, as `(call_id, name, arguments)`: it is published before
/// anything else about it.
pub async fn first_call(turn: &mut TurnHandle) -> (String, String, String) {
    loop {
        match next_event(turn).await {
            AdapterEvent::FunctionCall {
                call_id,
                name,
                arguments,
            } => return (call_id, name, arguments),
            AdapterEvent::FunctionResultApplied { .. } | AdapterEvent::CallAbandoned { .. } => {
                panic!("call state before the call")
            }
            event => assert!(!event.is_terminal(), "{event:?}"),
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

/// Reads events until the terminal one, answering every function call with
/// `answer(name, arguments)` and expecting a confirmed receipt; returns them all (terminal
/// last).
pub async fn until_terminal_answering(
    turn: &mut TurnHandle,
    mut answer: impl FnMut(&str, &str) -> FunctionResultContent,
) -> Vec<AdapterEvent> {
    let mut events = Vec::new();
    loop {
        let event = next_event(turn).await;
        if let AdapterEvent::FunctionCall {
            call_id,
            name,
            arguments,
        } = &event
        {
            let result = answer(name, arguments);
            assert_eq!(
                turn.control.submit_function_result(call_id, result).await,
                Receipt::Confirmed
            );
        }
        let terminal = event.is_terminal();
        events.push(event);
        if terminal {
            return events;
        }
    }
}

/// Runs root Turn `n`, answering every call with `weather #n` (confirmed), and expects the
/// final answer `FINAL: weather #n`: what the test models answer after a function result.
pub async fn weather_turn(executor: &dyn SessionExecutor, n: u32, text: &str) {
    let mut turn = executor.start_turn(user_turn(n, text)).await.unwrap();
    let result = format!("weather #{n}");
    let events = until_terminal_answering(&mut turn, |_, _| text_result(&result)).await;
    assert_eq!(
        final_answer(&events),
        Some(format!("FINAL: {result}")),
        "{events:?}"
    );
}

/// The eviction contract on a fresh Session that offers `get_weather`: Turn 1 runs, eviction
/// leaves no process, and Turn 2 runs on a new process that resumes the same native session.
/// Returns that session's id.
pub async fn evict_and_resume(executor: &dyn SessionExecutor) -> String {
    let native = executor.native_session_id().expect("a native session id");
    weather_turn(executor, 1, "Weather in Lyon?").await;
    executor.evict().await.unwrap();
    assert!(
        !executor.is_resident(),
        "an evicted Session holds no process"
    );
    weather_turn(executor, 2, "And tomorrow?").await;
    assert!(executor.is_resident());
    assert_eq!(
        executor.native_session_id().as_deref(),
        Some(native.as_str()),
        "the same native session"
    );
    native
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

/// The Turn's `web_search_call` observations: each one's place among the events, item id,
/// status and action.
pub fn web_search_calls(
    events: &[AdapterEvent],
) -> Vec<(usize, String, WebSearchStatus, Option<WebSearchAction>)> {
    events
        .iter()
        .enumerate()
        .filter_map(|(at, e)| match e {
            AdapterEvent::WebSearchCall {
                item_id,
                status,
                action,
            } => Some((at, item_id.clone(), *status, action.clone())),
            _ => None,
        })
        .collect()
}

/// The text of the last final-answer message.
pub fn final_answer(events: &[AdapterEvent]) -> Option<String> {
    completed_messages(events)
        .into_iter()
        .rev()
        .find(|(_, phase, _)| *phase == MessagePhase::FinalAnswer)
        .map(|(_, _, text)| text)
}

/// Asserts that the Turn completed.
#[track_caller]
pub fn assert_completed(events: &[AdapterEvent]) {
    assert!(
        matches!(events.last(), Some(AdapterEvent::Completed { .. })),
        "{events:?}"
    );
}

/// Asserts that the Turn was cancelled.
#[track_caller]
pub fn assert_cancelled(events: &[AdapterEvent]) {
    assert!(
        matches!(events.last(), Some(AdapterEvent::Cancelled { .. })),
        "{events:?}"
    );
}

/// Asserts that the Turn failed with `code`.
#[track_caller]
pub fn assert_failed(events: &[AdapterEvent], code: &str) {
    assert!(
        matches!(events.last(), Some(AdapterEvent::Failed { code: c, .. }) if c == code),
        "{events:?}"
    );
}

/// Answers `call_id` with `result` and expects a confirmed receipt; a second result for the
/// same call is then refused (an adapter never answers twice).
pub async fn confirm_once(turn: &TurnHandle, call_id: &str, result: FunctionResultContent) {
    let receipt = turn
        .control
        .submit_function_result(call_id, result.clone())
        .await;
    assert_eq!(receipt, Receipt::Confirmed);
    let again = turn.control.submit_function_result(call_id, result).await;
    assert!(matches!(again, Receipt::Refused { .. }), "{again:?}");
}

/// Cancels a Turn while `call_id` is pending: the Turn ends cancelled with the call abandoned,
/// and a result sent after the end is refused. Returns the Turn's remaining events.
pub async fn cancel_abandons(turn: &mut TurnHandle, call_id: &str) -> Vec<AdapterEvent> {
    turn.control.cancel().await.unwrap();
    let events = until_terminal(turn).await;
    assert_abandoned(&events, call_id);
    assert_cancelled(&events);
    let late = turn
        .control
        .submit_function_result(call_id, text_result("late"))
        .await;
    assert!(matches!(late, Receipt::Refused { .. }), "{late:?}");
    events
}

/// Asserts that `call_id` was abandoned.
#[track_caller]
pub fn assert_abandoned(events: &[AdapterEvent], call_id: &str) {
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AdapterEvent::CallAbandoned { call_id: c } if c == call_id)),
        "{events:?}"
    );
}

/// Asserts that `call_id`'s result was observed applied.
#[track_caller]
pub fn assert_applied(events: &[AdapterEvent], call_id: &str) {
    assert!(
        events.iter().any(
            |e| matches!(e, AdapterEvent::FunctionResultApplied { call_id: c } if c == call_id)
        ),
        "{events:?}"
    );
}
