//! A stdio MCP server whose `env_vars` names a variable the Environment does not set fails the
//! preparation with `sandbox_error` and a message naming the server and the variable, before
//! anything is placed: no workspace is made, no harness starts, the server never runs, and the
//! model sees no request.

use crate::support;

use support::mcp::{binary, configuration, model, model_requests};
use support::mcp_stdio::*;
use support::workspace::{managed_dir, preparation};
use support::{scratch, send};
use switchboard_mock_model::Scenario;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::messages::{ExecutionPrepare, PreparationState};
use switchboard_protocol::workspace::{NetworkAccess, Workspace};

const UNSET: &str = "SWITCHBOARD_TEST_NEVER_SET_4b7e";

async fn fails_the_start(harness: HarnessId, workspace: Workspace, record: &str, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let model = model(Scenario::new(vec![])).await;
    let data = scratch("mcp-stdio-unset-");
    let environment_id = workspace.environment_id.clone();
    let cwd = workspace.directory.clone();
    let mut config = configuration(harness, &model, vec![]);
    config.mcp_stdio_servers = vec![stdio_server(
        "labio",
        fixture_binary().to_str().unwrap(),
        record,
        &cwd,
        &[UNSET],
    )];
    config.workspace = Some(workspace);
    let mut runtime = managed_runtime(harness, binary, data.path());
    let prepare = ExecutionPrepare {
        session_id: "sess_1".into(),
        configuration: config,
    };
    send(&runtime, "sess_1", prepare).await;
    let states = preparation(&mut runtime, "sess_1").await;
    let failed = states.last().unwrap();
    assert_eq!(failed.state, PreparationState::Failed, "{states:?}");
    assert_eq!(failed.error_code.as_deref(), Some("sandbox_error"));
    assert_eq!(
        failed.error.as_deref(),
        Some(
            format!(
                "MCP server labio needs the environment variable {UNSET}, which the environment does not set."
            )
            .as_str()
        )
    );
    // Nothing ran and nothing was written.
    assert!(record_of(record).is_empty(), "the server ran");
    assert!(model_requests(&model).is_empty());
    assert!(!data.path().join("sessions").join("sess_1").exists());
    assert!(!managed_dir(data.path(), &environment_id).exists());
}

fn record_of(path: &str) -> Vec<serde_json::Value> {
    record(std::path::Path::new(path))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_self_hosted_env_var_unset_in_the_runtime_environment_fails_the_start() {
    let project = scratch("mcp-stdio-unset-project-");
    let record = project.path().join("record.jsonl");
    fails_the_start(
        HarnessId::Codex,
        self_hosted("env_home", project.path()),
        record.to_str().unwrap(),
        "codex_self_hosted_env_var_unset_in_the_runtime_environment_fails_the_start",
    )
    .await
}

#[test]
fn claude_managed_env_var_missing_from_the_workspace_env_fails_the_start() {
    // The Runtime's own environment sets it: a managed workspace takes values from its `env`
    // only, never from the host.
    with_process_env(UNSET, "host-value", async {
        let probe = scratch("mcp-stdio-unset-record-");
        let record = probe.path().join("record.jsonl");
        let workspace = managed_with_fixture("env_unset", NetworkAccess::Enabled, &[]);
        fails_the_start(
            HarnessId::ClaudeCode,
            workspace,
            record.to_str().unwrap(),
            "claude_managed_env_var_missing_from_the_workspace_env_fails_the_start",
        )
        .await
    })
}
