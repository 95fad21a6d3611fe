//! Test support: the codex binary (or a loud skip), a scripted Responses provider (the same
//! fake the codex adapter's tests use), Session configurations and frame helpers.

pub mod fake_core;
pub mod limit;
pub mod mcp;
pub mod mcp_server;
pub mod mcp_stdio;
pub mod process_env;
pub mod shared;
pub mod tls;
pub mod warm;
pub mod workspace;
// The same scripted provider the codex adapter's tests use: one copy, shared by path.
#[path = "../../../codex/tests/support/fake_responses.rs"]
#[allow(dead_code)] // these tests use a share of it
pub mod fake_responses;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::envelope::Envelope;
use switchboard_protocol::messages::{ExecutionPrepare, PreparationState};
use switchboard_protocol::{
    CoreToRuntime, ExecutionControls, FunctionToolSpec, ModelProviderConfig, RuntimeToCore,
    SessionConfiguration,
};
use switchboard_runtime::{LocalRuntime, Locator, Registry, RuntimeOptions, install};

/// Bound on any single wait in these tests.
pub const WAIT: Duration = Duration::from_secs(60);

/// A scratch directory under the target dir (codex refuses helper binaries under /tmp).
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/runtime-test-state");
    std::fs::create_dir_all(&parent).unwrap();
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(parent)
        .unwrap()
}

/// The pinned codex binary as the Runtime resolves it, or `None` (with a loud SKIPPED line)
/// outside CI. In CI (`CI=true`) a missing binary fails the test.
pub fn codex_binary(test: &str) -> Option<PathBuf> {
    let data_dir = scratch("locate-");
    let located = Locator::from_env(data_dir.path()).locate(&install::CODEX);
    if located.exists {
        return Some(located.path);
    }
    let message = format!(
        "codex binary not found (set {} or run scripts/install-harnesses.sh)",
        install::CODEX.binary_env
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}

/// A LocalRuntime running codex from `binary`, with Session state under `state`.
pub fn local_runtime(binary: PathBuf, state: &Path, idle_timeout: Duration) -> LocalRuntime {
    let locator = Locator::new(state).with_explicit(HarnessId::Codex, binary);
    let options = RuntimeOptions {
        idle_timeout,
        heartbeat_interval: Duration::from_secs(30),
        ..runtime_options(state)
    };
    LocalRuntime::start(Arc::new(Registry::standard(locator)), options)
}

/// Options for a Runtime on the data dir `state`, its sandbox relay being this crate's
/// `switchboard-sandbox-relay` (the `switchboard` binary is not built for these tests).
pub fn runtime_options(state: &Path) -> RuntimeOptions {
    let mut options = RuntimeOptions::for_data_dir(state);
    options.workspaces.relay_command = vec![env!("CARGO_BIN_EXE_switchboard-sandbox-relay").into()];
    options
}

pub fn get_weather() -> FunctionToolSpec {
    FunctionToolSpec {
        name: "get_weather".into(),
        description: "Get the weather for a city".into(),
        parameters: serde_json::from_str(
            r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}"#,
        )
        .unwrap(),
        defer_loading: false,
    }
}

pub fn configuration(base_url: &str, functions: Vec<FunctionToolSpec>) -> SessionConfiguration {
    SessionConfiguration {
        harness: HarnessId::Codex,
        model: "gpt-fake".into(),
        instructions: Some("answer briefly".into()),
        model_provider: ModelProviderConfig {
            protocol: ProviderProtocol::Responses,
            base_url: format!("{base_url}/v1"),
            api_key: "sk-test-key".into(),
            context_window: None,
            max_output_tokens: None,
        },
        function_tools: functions,
        tool_search: false,
        execution_controls: ExecutionControls::default(),
        mcp_servers: vec![],
        mcp_stdio_servers: vec![],
        mcp_environment_servers: vec![],
        harness_config: None,
        workspace: None,
    }
}

pub async fn send(runtime: &LocalRuntime, id: &str, message: impl Into<CoreToRuntime>) {
    runtime
        .to_runtime
        .send(Envelope::new(Some(id.to_owned()), message.into()))
        .await
        .expect("the runtime is running");
}

/// The next frame that is not a heartbeat, bounded.
pub async fn next_frame(runtime: &mut LocalRuntime) -> Envelope<RuntimeToCore> {
    loop {
        let frame = tokio::time::timeout(WAIT, runtime.from_runtime.recv())
            .await
            .expect("timed out waiting for a frame")
            .expect("the runtime closed its output");
        if !matches!(frame.message, RuntimeToCore::Heartbeat(_)) {
            return frame;
        }
    }
}

/// Sends `execution_prepare` and waits for `ready` (after `preparing`).
pub async fn prepare(runtime: &mut LocalRuntime, session_id: &str, config: SessionConfiguration) {
    let prepare = ExecutionPrepare {
        session_id: session_id.into(),
        configuration: config,
    };
    send(runtime, session_id, prepare).await;
    let mut states = Vec::new();
    loop {
        let frame = next_frame(runtime).await;
        assert_eq!(frame.id.as_deref(), Some(session_id));
        let RuntimeToCore::PreparationStatus(status) = frame.message else {
            panic!("expected preparation_status, got {frame:?}");
        };
        states.push(status.state);
        match status.state {
            PreparationState::Ready => break,
            PreparationState::Preparing => {}
            _ => panic!("preparation failed: {status:?}"),
        }
    }
    assert_eq!(
        states,
        [PreparationState::Preparing, PreparationState::Ready]
    );
}

/// Frames of one Run until its `done`, inclusive.
pub async fn until_done(runtime: &mut LocalRuntime, run_id: &str) -> Vec<RuntimeToCore> {
    let mut frames = Vec::new();
    loop {
        let frame = next_frame(runtime).await;
        assert_eq!(frame.id.as_deref(), Some(run_id), "{frame:?}");
        let done = matches!(frame.message, RuntimeToCore::Done(_));
        frames.push(frame.message);
        if done {
            return frames;
        }
    }
}

/// A `codex` and a `claude` module of multi-threaded tokio tests from `name => body` pairs; each
/// calls `body(harness, "<harness>::<name>")`. The caller has `HarnessId` in scope.
macro_rules! both_harnesses {
    ($($name:ident => $body:ident),* $(,)?) => {
        mod codex {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                $body(HarnessId::Codex, concat!("codex::", stringify!($name))).await
            })*
        }
        mod claude {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                $body(HarnessId::ClaudeCode, concat!("claude::", stringify!($name))).await
            })*
        }
    };
}
