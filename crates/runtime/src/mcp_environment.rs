//! Environment-origin HTTP MCP servers: reached from the workspace, never relocated.
//!
//! The harness gets each one's own URL and declared (non-secret) headers and connects from
//! where it runs: the user's machine for a self-hosted workspace; for a managed one, the
//! sandbox, which shares the host's network when its network is enabled and, when disabled,
//! reaches only servers inside the sandbox (there is no fallback through the host). Nothing is
//! relayed through the credential gateway, so such a server cannot take a Vault bearer: the
//! bearer would have to enter the harness. One with a bearer fails the preparation; it is
//! never served anonymously instead.

use switchboard_protocol::SessionConfiguration;

/// The preparation's error code: the server's credential cannot be used.
pub const CODE: &str = "mcp_credential_unavailable";

/// Refuses an environment-origin server that carries a bearer.
pub fn check(config: &SessionConfiguration) -> Result<(), String> {
    match config
        .mcp_environment_servers
        .iter()
        .find(|s| s.bearer.is_some())
    {
        Some(server) => Err(format!(
            "MCP server {} connects from the workspace, where a Vault credential cannot be delivered; credentials reach only service-origin MCP servers.",
            server.server_label
        )),
        None => Ok(()),
    }
}
