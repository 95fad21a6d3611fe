//! MCP servers of a managed Session reach the Runtime by origin: a stdio server in
//! `mcp_stdio_servers` with its `env_vars` names only (the value stays in the workspace's
//! sealed `env`), an environment-origin HTTP server in `mcp_environment_servers` (never in the
//! gateway's `mcp_servers`).

use crate::support;

use serde_json::json;
use support::Peer;
use switchboard_protocol::CoreToRuntime;

#[tokio::test]
async fn a_managed_session_sends_stdio_and_environment_servers_by_origin() {
    let mut peer = Peer::start().await;
    let body = json!({
        "environment": {"type": "openai_hosted", "env": {"LAB_TOKEN": "tok-lab-value-77"}},
        "agent": {"model": "m", "tools": [
            {"type": "mcp", "server_label": "labio",
             "transport": {"type": "stdio", "command": "/workspace/srv", "args": ["--stdio"],
                           "cwd": "/workspace", "env_vars": ["LAB_TOKEN"]},
             "required": true},
            {"type": "mcp", "server_label": "wiki",
             "transport": {"type": "http", "server_url": "http://127.0.0.1:8931/mcp",
                           "headers": {"X-Team": "docs"}},
             "connection_origin": "environment", "allowed_tools": ["search"]},
        ]},
        "input": "go",
    });
    let (status, session) = peer.request("POST", "/agents/sessions", Some(body)).await;
    assert_eq!(status, 201, "{session}");
    let CoreToRuntime::ExecutionPrepare(prepare) = peer.next_frame().await.message else {
        panic!("expected execution_prepare")
    };
    let config = prepare.configuration;
    assert!(config.mcp_servers.is_empty(), "{:?}", config.mcp_servers);
    let stdio = &config.mcp_stdio_servers;
    assert_eq!(stdio.len(), 1);
    assert_eq!(
        serde_json::to_value(&stdio[0]).unwrap(),
        json!({"server_label": "labio", "command": "/workspace/srv", "args": ["--stdio"],
               "cwd": "/workspace", "env_vars": ["LAB_TOKEN"], "allowed_tools": null,
               "required": true})
    );
    let environment = &config.mcp_environment_servers;
    assert_eq!(environment.len(), 1);
    assert_eq!(environment[0].server_label, "wiki");
    assert_eq!(environment[0].server_url, "http://127.0.0.1:8931/mcp");
    assert_eq!(environment[0].headers["X-Team"], "docs");
    assert_eq!(
        environment[0].allowed_tools,
        Some(vec!["search".to_owned()])
    );
    assert_eq!(environment[0].bearer, None);
    // The value travels only in the workspace's env, opened for this preparation.
    let workspace = config.workspace.as_ref().unwrap();
    assert_eq!(workspace.env["LAB_TOKEN"], "tok-lab-value-77");
    let mut without_env = config.clone();
    without_env.workspace.as_mut().unwrap().env.clear();
    assert!(!format!("{without_env:?}").contains("tok-lab-value-77"));
    assert!(
        !serde_json::to_string(&without_env)
            .unwrap()
            .contains("tok-lab-value-77")
    );
}
