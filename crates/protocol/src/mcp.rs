//! MCP servers in the Session configuration, and the `mcp_call` observation.
//!
//! [`McpServer`]s are HTTP servers: of `connection_origin: service` in `mcp_servers` (on
//! `environment: none`, served through the gateway below), or of `environment` origin in
//! `mcp_environment_servers` (on a workspace placement; the harness connects to them from the
//! workspace with their own URL and headers, never relocated, so they take no bearer).
//! [`McpStdioServer`]s run as processes of the Session's workspace (stdio is always
//! `environment` origin); only the names of their `env_vars` travel here, never values.
//!
//! Core sends each declared HTTP server with the Vault bearer it froze at create (or none:
//! anonymous). The Runtime never hands that bearer to a harness: it serves the servers through
//! its loopback credential gateway and gives the adapter a copy whose `server_url` is the
//! gateway's, with no `bearer` and no `headers` (the gateway adds both). `Debug` never prints
//! the bearer.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One HTTP MCP server of the Session (service or environment origin, by the list it is in).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// The Agent's label, used for native tool names and public `mcp_call` Items.
    pub server_label: String,
    /// Where the server is; after the Runtime's gateway, the gateway's loopback URL.
    pub server_url: String,
    /// Non-secret headers in declared order; the gateway sends them on every request.
    pub headers: Map<String, Value>,
    /// `None` exposes every server tool, `Some([])` none: never conflated.
    pub allowed_tools: Option<Vec<String>>,
    /// Native thread creation and cold resume wait for the server to initialize.
    pub required: bool,
    /// The Vault bearer selected at create; `None` is anonymous.
    pub bearer: Option<String>,
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("server_label", &self.server_label)
            .field("server_url", &self.server_url)
            .field("headers", &self.headers)
            .field("allowed_tools", &self.allowed_tools)
            .field("required", &self.required)
            .field("bearer", &self.bearer.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl McpServer {
    /// Whether `tool` may be exposed to the model (`allowed_tools` null = all, `[]` = none).
    pub fn allows(&self, tool: &str) -> bool {
        self.allowed_tools
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == tool))
    }
}

/// One stdio MCP server of the Session: a process the harness starts in the workspace.
///
/// `env_vars` are names of the Environment's variables; the Runtime resolves them there
/// (a managed workspace's `env`, or the self-hosted Runtime's own environment) and fails the
/// start when one is not set. Core never sees the values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpStdioServer {
    pub server_label: String,
    pub command: String,
    pub args: Vec<String>,
    /// An absolute path in the workspace as the harness sees it.
    pub cwd: String,
    pub env_vars: Vec<String>,
    /// `None` exposes every server tool, `Some([])` none (admission requires null on Claude).
    pub allowed_tools: Option<Vec<String>>,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpCallStatus {
    InProgress,
    Completed,
    Failed,
}

/// A call the harness made natively to a declared MCP server: an observation, not a caller
/// function. Sent when it starts (`in_progress`) and when it ends, with the same `item_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpCall {
    pub item_id: String,
    /// The declared label and the server's own tool name (not the native `mcp__…` name).
    pub server_label: String,
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
    /// The observed native result as text; null until it ends or when it failed.
    pub output: Option<String>,
    pub error: Option<String>,
    pub status: McpCallStatus,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(allowed: Option<Vec<String>>) -> McpServer {
        McpServer {
            server_label: "lab".into(),
            server_url: "http://127.0.0.1:1/mcp".into(),
            headers: Map::new(),
            allowed_tools: allowed,
            required: false,
            bearer: Some("tok-secret".into()),
        }
    }

    #[test]
    fn debug_never_prints_the_bearer() {
        let text = format!("{:?}", server(None));
        assert!(
            !text.contains("tok-secret") && text.contains("<redacted>"),
            "{text}"
        );
    }

    #[test]
    fn null_allows_every_tool_and_an_empty_list_none() {
        assert!(server(None).allows("x"));
        assert!(!server(Some(vec![])).allows("x"));
        assert!(server(Some(vec!["x".into()])).allows("x"));
        let wire = |s: McpServer| serde_json::to_value(s).unwrap()["allowed_tools"].clone();
        assert_eq!(wire(server(None)), Value::Null);
        assert_eq!(wire(server(Some(vec![]))), serde_json::json!([]));
    }
}
