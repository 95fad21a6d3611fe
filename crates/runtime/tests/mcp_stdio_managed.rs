//! A stdio MCP server on a managed workspace: the harness starts the real rmcp fixture inside
//! the bubblewrap sandbox (network disabled: a stdio server needs none), in `/workspace`, with
//! the variable its `env_vars` names from the workspace's `env`; the model calls its tool and
//! the result reaches the model and the `mcp_call` frames.

use crate::support;

use serde_json::json;
use support::mcp::{binary, completed_call, configuration, model, model_requests, prepared_turn};
use support::mcp_stdio::*;
use support::scratch;
use support::workspace::{bwrap, managed_dir};
use switchboard_mock_model::mcp_tool_turn;
use switchboard_protocol::MANAGED_WORKSPACE_DIRECTORY;
use switchboard_protocol::configuration::HarnessId;
use switchboard_protocol::workspace::NetworkAccess;

const VAR: &str = "LAB_TOKEN";
const VALUE: &str = "lab-value-from-the-environment-9c1e";

async fn managed_stdio_turn(harness: HarnessId, test: &str) {
    let (Some(_), Some(binary)) = (bwrap(test), binary(harness, test)) else {
        return;
    };
    let model = model(mcp_tool_turn(
        "labio",
        "read_env",
        json!({"name": VAR}),
        "FINAL: read",
    ))
    .await;
    let data = scratch("mcp-stdio-managed-");
    let mut config = configuration(harness, &model, vec![]);
    config.mcp_stdio_servers = vec![stdio_server(
        "labio",
        &format!("{MANAGED_WORKSPACE_DIRECTORY}/{FIXTURE_NAME}"),
        "record.jsonl",
        MANAGED_WORKSPACE_DIRECTORY,
        &[VAR],
    )];
    config.workspace = Some(managed_with_fixture(
        "env_stdio",
        NetworkAccess::Disabled,
        &[(VAR, VALUE)],
    ));

    let mut runtime = managed_runtime(harness, binary, data.path());
    let frames = prepared_turn(&mut runtime, "sess_1", config, "What is the token?").await;
    let expected = format!("{VAR}={VALUE}");
    completed_call(&frames, "labio", "read_env", &expected);
    let last = model_requests(&model).last().unwrap().to_string();
    assert!(
        last.contains(&expected),
        "the result reached the model: {last}"
    );

    // It ran inside the sandbox, in /workspace, and recorded there (the managed directory).
    let record = record(&managed_dir(data.path(), "env_stdio").join("record.jsonl"));
    let cwds = started_in(&record);
    assert!(!cwds.is_empty(), "{record:?}");
    assert!(
        cwds.iter().all(|c| c == MANAGED_WORKSPACE_DIRECTORY),
        "{cwds:?}"
    );
    assert_eq!(tools_called(&record), vec!["read_env"]);
}

mod codex {
    use super::*;
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stdio_tool_runs_in_the_managed_sandbox_with_its_env_var() {
        managed_stdio_turn(
            HarnessId::Codex,
            "codex::a_stdio_tool_runs_in_the_managed_sandbox_with_its_env_var",
        )
        .await
    }
}

mod claude {
    use super::*;
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stdio_tool_runs_in_the_managed_sandbox_with_its_env_var() {
        managed_stdio_turn(
            HarnessId::ClaudeCode,
            "claude::a_stdio_tool_runs_in_the_managed_sandbox_with_its_env_var",
        )
        .await
    }
}
