//! A stdio MCP server on a self-hosted workspace, end to end on the real harnesses: the server
//! is the real rmcp fixture, started by the harness in the workspace directory with the
//! variable its `env_vars` names, whose value comes from the Runtime's own environment (the
//! user's machine), never from the configuration; the model calls its tool, the result
//! reaches the model and the `mcp_call` frames carry it.

use crate::support;

use serde_json::json;
use support::mcp::*;
use support::mcp_stdio::*;
use support::scratch;
use switchboard_mock_model::mcp_tool_turn;
use switchboard_protocol::configuration::HarnessId;

const VAR: &str = "SWITCHBOARD_TEST_LAB_TOKEN";
const VALUE: &str = "lab-value-from-the-users-machine-41d2";

async fn stdio_turn(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let fixture = fixture_binary();
    let model = model(mcp_tool_turn(
        "labio",
        "read_env",
        json!({"name": VAR}),
        "FINAL: read",
    ))
    .await;
    let state = scratch("mcp-stdio-state-");
    let project = scratch("mcp-stdio-project-");
    let workspace = self_hosted("env_home", project.path());
    let directory = workspace.directory.clone();
    let record_path = project.path().join("record.jsonl");
    let mut config = configuration(harness, &model, vec![]);
    config.mcp_stdio_servers = vec![stdio_server(
        "labio",
        fixture.to_str().unwrap(),
        record_path.to_str().unwrap(),
        &directory,
        &[VAR],
    )];
    config.workspace = Some(workspace);
    assert!(
        !serde_json::to_string(&config).unwrap().contains(VALUE),
        "the value is not in what Core sends"
    );

    let mut runtime = runtime(harness, binary, state.path());
    let frames = prepared_turn(&mut runtime, "sess_1", config, "What is the token?").await;
    let expected = format!("{VAR}={VALUE}");
    completed_call(&frames, "labio", "read_env", &expected);
    let last = model_requests(&model).last().unwrap().to_string();
    assert!(
        last.contains(&expected),
        "the result reached the model: {last}"
    );

    // The harness started the server in the workspace directory, and it served the call.
    let record = record(&record_path);
    let cwds = started_in(&record);
    assert!(!cwds.is_empty(), "{record:?}");
    assert!(
        cwds.iter().all(|c| *c == directory),
        "{cwds:?} ≠ {directory}"
    );
    assert_eq!(tools_called(&record), vec!["read_env"]);
}

macro_rules! both_harnesses_in_process_env {
    ($($name:ident => $body:ident),* $(,)?) => {
        mod codex {
            use super::*;
            $(#[test]
            fn $name() {
                with_process_env(VAR, VALUE, $body(HarnessId::Codex, concat!("codex::", stringify!($name))))
            })*
        }
        mod claude {
            use super::*;
            $(#[test]
            fn $name() {
                with_process_env(VAR, VALUE, $body(HarnessId::ClaudeCode, concat!("claude::", stringify!($name))))
            })*
        }
    };
}

both_harnesses_in_process_env! {
    a_stdio_tool_runs_in_the_self_hosted_workspace_with_its_env_var => stdio_turn,
}
