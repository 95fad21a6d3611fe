//! The MCP part of a declaration: which public MCP servers the native client can serve.
//!
//! Common rules (origin against placement, stdio only on a workspace) hold for every harness;
//! what varies is data here: transports and origins, labels the adapter keeps for itself or
//! the native client cannot name, allowlists, required initialization, bearer tokens,
//! `${` expansion, and where a stdio server starts.

use switchboard_execution::{ConnectionOrigin, McpTransport};

use super::NamePattern;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mcp {
    /// Transports the native client speaks. Empty: no public MCP at all.
    pub transports: &'static [McpTransportKind],
    /// Connection origins the harness serves (core-contracts §5.2).
    pub origins: &'static [ConnectionOrigin],
    /// Labels the adapter or native harness uses itself.
    pub reserved_labels: &'static [ReservedLabel],
    /// Which server labels the native client accepts.
    pub label: NamePattern,
    /// Which tool names may appear in `allowed_tools`.
    pub tool_name: NamePattern,
    /// A non-null `allowed_tools` list.
    pub allowed_tools: bool,
    /// A non-null `allowed_tools` on a stdio server. The Claude adapter can hide unselected
    /// tools only on HTTP servers.
    pub allowed_tools_on_stdio: bool,
    /// `required: true` (native start waits for initialization).
    pub required_servers: bool,
    /// Bearer authentication through a Vault credential.
    pub bearer_auth: bool,
    /// The native client expands `${VAR}` in `server_url` and header values, so a literal
    /// `${` would be replaced by the adapter's own environment (the provider key included).
    pub expands_env_references: bool,
    /// Where the native client starts a stdio server.
    pub stdio_cwd: StdioCwd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpTransportKind {
    Http,
    Stdio,
}

impl McpTransportKind {
    pub fn of(transport: &McpTransport) -> McpTransportKind {
        match transport {
            McpTransport::Http { .. } => McpTransportKind::Http,
            McpTransport::Stdio { .. } => McpTransportKind::Stdio,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            McpTransportKind::Http => "http",
            McpTransportKind::Stdio => "stdio",
        }
    }
}

/// A label a public MCP server may not use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservedLabel {
    pub label: &'static str,
    pub when: ReservedWhen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReservedWhen {
    Always,
    /// Reserved only when the Agent declares function tools, because the adapter then serves
    /// them as an MCP server of this name (MiniMax Code's `functions`).
    AgentHasFunctions,
}

/// Where the native harness starts a stdio server, which decides the `cwd`s it can honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdioCwd {
    /// The declared `cwd` is used as is (Codex writes it to `[mcp_servers]`).
    Any,
    /// The server starts in the harness's own directory, the workspace directory, so `cwd`
    /// must name it (Claude Code).
    WorkspaceDirectory,
    /// The server starts in a private directory no `cwd` can name, so every stdio server is
    /// rejected (MiniMax Code).
    Rejected,
}
