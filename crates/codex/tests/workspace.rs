//! Codex on a workspace placement: the model's native command (`exec_command`) runs in the
//! workspace and writes a file there, the command is reported as a `command_execution` opened
//! and finished, and after eviction the resumed thread works in the same workspace and sees the
//! file. Self-hosted (codex works directly in the directory, under its own `workspace-write`
//! sandbox) and managed (codex inside a bubblewrap sandbox, as `danger-full-access`, where the
//! workspace is `/workspace`). The workspace is trusted, so its `.codex/config.toml` loads on
//! start and on cold resume.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use support::*;
use switchboard_adapter_kit::test_workspace::*;
use switchboard_codex::CodexAdapter;
use switchboard_protocol::{ExecutionControls, ProcessPlacement};

fn adapter(binary: PathBuf) -> CodexAdapter {
    CodexAdapter::new(binary).with_turn_deadline(Duration::from_secs(45))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn self_hosted_command_writes_the_workspace_and_resume_sees_it() {
    let Some(binary) = codex_binary("self_hosted_command_writes_the_workspace_and_resume_sees_it")
    else {
        return;
    };
    let model = mock_model(Some(shell_scenario())).await;
    let workspace = workspace_dir("codex");
    let state = state_dir("codex");
    let placement = self_hosted(workspace.path());
    let work_dir = placement.work_dir.to_string_lossy().into_owned();
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    let wrote = write_evict_read(executor.as_ref(), workspace.path(), &work_dir).await;
    assert_eq!(
        wrote.cwd.as_deref(),
        Some(work_dir.as_str()),
        "codex reports the cwd"
    );
    model.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandboxed_command_writes_the_workspace_and_resume_sees_it() {
    let test = "sandboxed_command_writes_the_workspace_and_resume_sees_it";
    let Some(binary) = codex_binary(test) else {
        return;
    };
    if !bwrap_or_skip(test) {
        return;
    }
    let binary = binary.canonicalize().unwrap();
    let model = mock_model(Some(shell_scenario())).await;
    let workspace = workspace_dir("codex");
    let state = state_dir("codex");
    let placement = sandboxed(workspace.path(), state.path(), &binary);
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    let wrote = write_evict_read(executor.as_ref(), workspace.path(), SANDBOX_WORK_DIR).await;
    assert_eq!(
        wrote.cwd.as_deref(),
        Some(SANDBOX_WORK_DIR),
        "codex reports the cwd"
    );
    model.shutdown().await;
}

/// The `web_search` tool of a model request (codex's native default is `cached`, which sends
/// `external_web_access: false`).
fn web_search_tool(request: &Value) -> Option<Value> {
    request["tools"]
        .as_array()?
        .iter()
        .find(|t| t["type"] == "web_search")
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workspace_project_config_loads_on_start_and_cold_resume() {
    let Some(binary) = codex_binary("the_workspace_project_config_loads_on_start_and_cold_resume")
    else {
        return;
    };
    let model = mock_model(Some(shell_scenario())).await;
    let workspace = workspace_dir("codex");
    std::fs::create_dir_all(workspace.path().join(".codex")).unwrap();
    std::fs::write(
        workspace.path().join(".codex/config.toml"),
        "web_search = \"live\"\n",
    )
    .unwrap();
    let state = state_dir("codex");
    let placement: ProcessPlacement = self_hosted(workspace.path());
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    command_turn(executor.as_ref(), 1, "WRITE the file", "made.txt").await;
    executor.evict().await.unwrap();
    command_turn(executor.as_ref(), 2, "READ the file", "cat made.txt").await;
    let requests = model_requests(&model.journal());
    assert_eq!(requests.len(), 4, "two requests per Turn");
    for request in &requests {
        assert_eq!(
            web_search_tool(request).map(|t| t["external_web_access"].clone()),
            Some(Value::Bool(true)),
            "the project's web_search = \"live\" applies"
        );
    }
    model.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_command_is_reported_failed_with_its_exit_code() {
    let Some(binary) = codex_binary("a_failing_command_is_reported_failed_with_its_exit_code")
    else {
        return;
    };
    let model = mock_model(Some(failing_shell_scenario())).await;
    let workspace = workspace_dir("codex");
    let state = state_dir("codex");
    let placement = self_hosted(workspace.path());
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    failing_command_turn(executor.as_ref()).await;
    model.shutdown().await;
}

// A user's workspace can be anywhere, the system temp dir included (codex's own sandbox keeps
// it writable; only codex's home must stay out of /tmp).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_self_hosted_workspace_in_the_temp_dir_is_writable() {
    let Some(binary) = codex_binary("a_self_hosted_workspace_in_the_temp_dir_is_writable") else {
        return;
    };
    let model = mock_model(Some(shell_scenario())).await;
    let workspace = tempfile::tempdir().unwrap();
    let state = state_dir("codex");
    let placement = self_hosted(workspace.path());
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    command_turn(executor.as_ref(), 1, "WRITE the file", "made.txt").await;
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("made.txt")).unwrap(),
        format!("{WRITTEN}\n")
    );
    model.shutdown().await;
}

// The provider key travels to codex in its environment; codex's native shell environment
// policy leaves variables named like keys out of the commands it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_key_does_not_reach_the_models_commands() {
    let Some(binary) = codex_binary("the_provider_key_does_not_reach_the_models_commands") else {
        return;
    };
    let mut run = switchboard_mock_model::Rule::new(
        switchboard_mock_model::When {
            tool_output_present: Some(false),
            ..Default::default()
        },
        switchboard_mock_model::Reply::shell("env > env.txt"),
    );
    run.times = Some(1);
    let scenario = switchboard_mock_model::Scenario::new(vec![
        run,
        switchboard_mock_model::Reply::text("DONE").into(),
    ]);
    let model = mock_model(Some(scenario)).await;
    let workspace = workspace_dir("codex");
    let state = state_dir("codex");
    let placement = self_hosted(workspace.path());
    let config = configuration(&model.base_url(), vec![], ExecutionControls::default());
    let key = config.model_provider.api_key.clone();
    let executor = prepare_placed(&adapter(binary), config, state.path(), Some(placement)).await;
    command_turn(executor.as_ref(), 1, "print the environment", "env").await;
    let env = std::fs::read_to_string(workspace.path().join("env.txt")).unwrap();
    assert!(env.contains("PATH="), "{env}");
    assert!(!env.contains(&key), "{env}");
    model.shutdown().await;
}
