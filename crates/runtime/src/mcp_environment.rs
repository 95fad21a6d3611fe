//! Environment-origin HTTP MCP servers: reached from the workspace, never relocated.
//!
//! The harness gets each anonymous one's own URL and declared (non-secret) headers and connects
//! from where it runs: the user's machine for a self-hosted workspace; for a managed one, the
//! sandbox, which shares the host's network when its network is enabled and, when disabled,
//! reaches only servers inside the sandbox (there is no fallback through the host).
//!
//! A public environment-origin server's credential authority is the Project Vault
//! (core-contracts §5.4), and a bearer never enters a harness. So one that carries a bearer is
//! served through the Runtime's credential gateway ([`crate::mcp_gateway`]) like a
//! service-origin server. That is not a relocation: the gateway runs in this Runtime, which is
//! on the workspace's network (a self-hosted Runtime runs on the user's machine; a managed
//! sandbox with its network enabled shares the host's). A sandbox whose network is disabled
//! has no such path (and the origin needs an enabled network), so there such a server fails the
//! preparation; it is never served anonymously instead.

use switchboard_protocol::SessionConfiguration;
use switchboard_protocol::workspace::{NetworkAccess, WorkspacePlacement};

/// The preparation's error code: the server's credential cannot be used.
pub const CODE: &str = "mcp_credential_unavailable";

/// Moves the environment-origin servers that carry a bearer to the gateway's list, or refuses
/// the preparation when the workspace cannot reach the gateway's network.
pub fn route(config: &mut SessionConfiguration) -> Result<(), String> {
    if config
        .mcp_environment_servers
        .iter()
        .all(|s| s.bearer.is_none())
    {
        return Ok(());
    }
    let reachable = config.workspace.as_ref().is_some_and(|w| {
        w.placement == WorkspacePlacement::SelfHosted || w.network == NetworkAccess::Enabled
    });
    if !reachable {
        let label = config
            .mcp_environment_servers
            .iter()
            .find(|s| s.bearer.is_some())
            .map(|s| s.server_label.clone())
            .unwrap_or_default();
        return Err(format!(
            "MCP server {label} connects from the workspace, whose network is disabled; its Vault credential cannot be delivered there."
        ));
    }
    let (with_bearer, anonymous) = std::mem::take(&mut config.mcp_environment_servers)
        .into_iter()
        .partition(|s| s.bearer.is_some());
    config.mcp_environment_servers = anonymous;
    config.mcp_servers.extend::<Vec<_>>(with_bearer);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};
    use switchboard_protocol::McpServer;

    fn server(label: &str, bearer: Option<&str>) -> McpServer {
        McpServer {
            server_label: label.into(),
            server_url: format!("http://10.0.0.1/{label}"),
            headers: Map::new(),
            allowed_tools: None,
            required: false,
            bearer: bearer.map(str::to_owned),
        }
    }

    fn config(placement: &str, network: &str) -> SessionConfiguration {
        let mut value = json!({
            "harness": "codex",
            "model": "m",
            "instructions": null,
            "model_provider": {"protocol": "responses", "base_url": "http://127.0.0.1:1/v1",
                "api_key": "k", "context_window": null, "max_output_tokens": null},
            "function_tools": [],
            "tool_search": false,
            "execution_controls": {},
            "mcp_servers": [],
            "harness_config": null,
            "workspace": {"environment_id": "env_1", "placement": placement,
                "directory": "/workspace", "capability_directories": [], "network": network,
                "env": {}, "files": [], "setup_commands": []},
        });
        value["mcp_environment_servers"] = json!([]);
        value["mcp_stdio_servers"] = json!([]);
        let mut config: SessionConfiguration = serde_json::from_value(value).unwrap();
        config.mcp_environment_servers = vec![server("wiki", Some("tok")), server("docs", None)];
        config
    }

    #[test]
    fn a_bearer_goes_through_the_gateway_where_the_workspace_shares_its_network() {
        for (placement, network) in [("self_hosted", "enabled"), ("managed", "enabled")] {
            let mut c = config(placement, network);
            route(&mut c).unwrap();
            let labels =
                |v: &[McpServer]| v.iter().map(|s| s.server_label.clone()).collect::<Vec<_>>();
            assert_eq!(labels(&c.mcp_servers), ["wiki"]);
            assert_eq!(labels(&c.mcp_environment_servers), ["docs"]);
            assert_eq!(c.mcp_servers[0].bearer.as_deref(), Some("tok"));
        }
    }

    #[test]
    fn a_bearer_fails_a_sandbox_whose_network_is_disabled() {
        let mut c = config("managed", "disabled");
        let error = route(&mut c).unwrap_err();
        assert_eq!(
            error,
            "MCP server wiki connects from the workspace, whose network is disabled; its Vault credential cannot be delivered there."
        );
        assert!(c.mcp_servers.is_empty());
    }
}
