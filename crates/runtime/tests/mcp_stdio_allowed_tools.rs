//! Codex: `allowed_tools` of one on a stdio server (the real rmcp fixture, four tools) offers
//! the model exactly that tool (the mock model's journal), and `[]` offers none of another
//! server's.

use crate::support;

use support::mcp::*;
use support::mcp_stdio::*;
use support::scratch;
use switchboard_mock_model::Scenario;
use switchboard_protocol::configuration::HarnessId;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_stdio_allowed_tools_of_one_exposes_exactly_one() {
    let test = "codex_stdio_allowed_tools_of_one_exposes_exactly_one";
    let Some(binary) = binary(HarnessId::Codex, test) else {
        return;
    };
    let fixture = fixture_binary();
    let model = model(Scenario::new(vec![])).await;
    let state = scratch("mcp-stdio-allow-state-");
    let project = scratch("mcp-stdio-allow-project-");
    let workspace = self_hosted("env_home", project.path());
    let directory = workspace.directory.clone();
    let record_one = project.path().join("one.jsonl");
    let record_none = project.path().join("none.jsonl");
    let mut one = stdio_server(
        "one",
        fixture.to_str().unwrap(),
        record_one.to_str().unwrap(),
        &directory,
        &[],
    );
    one.allowed_tools = Some(vec!["get_time".into()]);
    let mut none = stdio_server(
        "none",
        fixture.to_str().unwrap(),
        record_none.to_str().unwrap(),
        &directory,
        &[],
    );
    none.allowed_tools = Some(vec![]);
    let mut config = configuration(HarnessId::Codex, &model, vec![]);
    config.mcp_stdio_servers = vec![one, none];
    config.workspace = Some(workspace);

    let mut runtime = runtime(HarnessId::Codex, binary, state.path());
    prepared_turn(&mut runtime, "sess_1", config, "hello").await;

    let first = model_requests(&model).into_iter().next().unwrap();
    let mcp_tools: Vec<String> = offered(&first)
        .into_iter()
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    assert_eq!(mcp_tools, vec!["mcp__one__get_time"]);
    // Both servers ran (required: codex waited for them); the selection is codex's own.
    assert!(!started_in(&record(&record_one)).is_empty());
    assert!(!started_in(&record(&record_none)).is_empty());
}
