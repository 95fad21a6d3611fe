//! An environment-origin HTTP MCP server on a self-hosted workspace is never relocated: the
//! harness is given the server's own URL (not the credential gateway's) and connects to it
//! from the workspace with the declared header; the model calls its tool and the `mcp_call`
//! frames carry the result. One with a Vault bearer is served through the Runtime's credential
//! gateway (on the workspace's own machine): the server gets the bearer, the harness never does.

use crate::support;

use serde_json::{Map, json};
use support::mcp::*;
use support::mcp_stdio::*;
use support::scratch;
use switchboard_mock_model::mcp_tool_turn;
use switchboard_protocol::McpCallStatus;
use switchboard_protocol::configuration::HarnessId;

async fn connects_from_the_workspace(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    let records = scratch("mcp-env-origin-record-");
    let record_path = records.path().join("record.jsonl");
    let fixture = HttpFixture::start(&record_path).await;
    let model = model(mcp_tool_turn(
        "wiki",
        "get_news",
        json!({"city": "Oslo"}),
        "FINAL: news",
    ))
    .await;
    let state = scratch("mcp-env-origin-state-");
    let project = scratch("mcp-env-origin-project-");
    let mut wiki = server("wiki", &fixture.url, None);
    wiki.headers = Map::from_iter([("X-Team".to_owned(), json!("docs"))]);
    wiki.required = true;
    let mut config = configuration(harness, &model, vec![]);
    config.mcp_environment_servers = vec![wiki];
    config.workspace = Some(self_hosted("env_home", project.path()));

    let mut runtime = runtime(harness, binary, state.path());
    let frames = prepared_turn(&mut runtime, "sess_1", config, "News?").await;
    // The harness held the server's own URL (codex's override, claude's MCP config).
    assert!(
        !command_lines_with(&fixture.url).is_empty(),
        "no harness was given {}",
        fixture.url
    );
    completed_call(
        &frames,
        "wiki",
        "get_news",
        "get_news in Oslo: nothing happened",
    );

    let record = record(&record_path);
    assert_eq!(tools_called(&record), vec!["get_news"]);
    let headers = http_headers(&record);
    assert!(!headers.is_empty());
    for h in &headers {
        assert_eq!(h.get("x-team"), Some(&json!("docs")), "{h:?}");
        // No bearer: anonymous (Claude: its blank Authorization).
        let authorization = h.get("authorization").and_then(|v| v.as_str());
        assert!(authorization.is_none_or(str::is_empty), "{h:?}");
    }
}

async fn a_bearer_is_added_by_the_gateway(harness: HarnessId, test: &str) {
    let Some(binary) = binary(harness, test) else {
        return;
    };
    const CANARY: &str = "tok-env-origin-canary";
    let records = scratch("mcp-env-origin-bearer-record-");
    let record_path = records.path().join("record.jsonl");
    let fixture = HttpFixture::start(&record_path).await;
    let model = model(mcp_tool_turn(
        "wiki",
        "get_time",
        json!({"city": "Oslo"}),
        "FINAL: time",
    ))
    .await;
    let state = scratch("mcp-env-origin-bearer-");
    let project = scratch("mcp-env-origin-project-");
    let mut wiki = server("wiki", &fixture.url, None);
    wiki.headers = Map::from_iter([("X-Team".to_owned(), json!("docs"))]);
    wiki.bearer = Some(CANARY.into());
    let mut config = configuration(harness, &model, vec![]);
    config.mcp_environment_servers = vec![wiki];
    config.workspace = Some(self_hosted("env_home", project.path()));
    let mut runtime = runtime(harness, binary, state.path());
    let frames = prepared_turn(&mut runtime, "sess_1", config, "Time?").await;
    // The harness held neither the bearer nor the server's own URL: only the gateway's.
    assert!(command_lines_with(CANARY).is_empty());
    assert!(command_lines_with(&fixture.url).is_empty());
    let calls = mcp_calls(&frames);
    assert_eq!(
        calls.last().map(|c| c.status),
        Some(McpCallStatus::Completed)
    );

    let record = record(&record_path);
    assert_eq!(tools_called(&record), vec!["get_time"]);
    let headers = http_headers(&record);
    assert!(!headers.is_empty());
    for h in &headers {
        assert_eq!(h.get("x-team"), Some(&json!("docs")), "{h:?}");
        assert_eq!(
            h.get("authorization"),
            Some(&json!(format!("Bearer {CANARY}"))),
            "{h:?}"
        );
    }
}

both_harnesses! {
    an_environment_origin_server_is_reached_from_the_workspace_with_its_own_url => connects_from_the_workspace,
    an_environment_origin_server_with_a_bearer_gets_it_from_the_gateway => a_bearer_is_added_by_the_gateway,
}
