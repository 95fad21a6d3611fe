//! Claude Code starts stdio servers itself: a required one that cannot start fails the Turn's
//! start with the public error before any model request; an optional one that cannot start is
//! skipped and the Turn runs without its tools (codex waits for required servers natively).

use crate::support;

use support::mcp::*;
use support::mcp_stdio::*;
use support::scratch;
use switchboard_mock_model::Scenario;
use switchboard_protocol::RuntimeToCore;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{PreparationState, TurnOutcome};

/// What a Session with one stdio server whose command does not exist gives: the preparation's
/// state and error, the first Turn's frames when it was ready, and the model's request count.
struct Ran {
    prepared: PreparationState,
    error: Option<String>,
    frames: Vec<RuntimeToCore>,
    requests: usize,
}

async fn session_with(harness: HarnessId, required: bool, test: &str) -> Option<Ran> {
    let binary = binary(harness, test)?;
    let model = model(Scenario::new(vec![])).await;
    let state = scratch("mcp-stdio-required-");
    let project = scratch("mcp-stdio-required-project-");
    let workspace = self_hosted("env_home", project.path());
    let mut broken = stdio_server(
        "broken",
        "/nonexistent/switchboard-no-such-server",
        "unused.jsonl",
        &workspace.directory,
        &[],
    );
    broken.required = required;
    let mut config = configuration(harness, &model, vec![]);
    config.mcp_stdio_servers = vec![broken];
    config.workspace = Some(workspace);
    let mut runtime = runtime(harness, binary, state.path());
    let (prepared, error) = prepare(&mut runtime, "sess_1", config).await;
    let frames = match prepared {
        PreparationState::Ready => turn(&mut runtime, "sess_1", "hello").await,
        _ => vec![],
    };
    let requests = model_requests(&model).len();
    Some(Ran {
        prepared,
        error,
        frames,
        requests,
    })
}

fn outcome(frames: &[RuntimeToCore]) -> Option<TurnOutcome> {
    match frames.last() {
        Some(RuntimeToCore::Done(done)) => Some(done.outcome),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_required_stdio_server_that_cannot_start_fails_the_start() {
    let test = "claude_required_stdio_server_that_cannot_start_fails_the_start";
    let Some(ran) = session_with(HarnessId::ClaudeCode, true, test).await else {
        return;
    };
    assert_eq!(ran.prepared, PreparationState::Failed);
    assert_eq!(
        ran.error.as_deref(),
        Some(
            "the harness could not be started: required MCP server broken did not initialize: claude reports it failed"
        )
    );
    assert_eq!(
        ran.requests, 0,
        "no model request without the required server"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_optional_stdio_server_that_cannot_start_is_skipped() {
    let test = "claude_optional_stdio_server_that_cannot_start_is_skipped";
    let Some(ran) = session_with(HarnessId::ClaudeCode, false, test).await else {
        return;
    };
    assert_eq!(ran.prepared, PreparationState::Ready, "{:?}", ran.error);
    assert_eq!(
        outcome(&ran.frames),
        Some(TurnOutcome::Completed),
        "{:?}",
        ran.frames
    );
    assert!(ran.requests > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_required_stdio_server_that_cannot_start_fails_the_start() {
    let test = "codex_required_stdio_server_that_cannot_start_fails_the_start";
    let Some(ran) = session_with(HarnessId::Codex, true, test).await else {
        return;
    };
    assert_eq!(ran.prepared, PreparationState::Failed);
    assert!(ran.error.unwrap().contains("broken"));
    assert_eq!(
        ran.requests, 0,
        "no model request without the required server"
    );
}
