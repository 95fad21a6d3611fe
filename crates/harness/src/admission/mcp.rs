//! MCP servers, one at a time, in tool order.
//!
//! For each server: its label (reserved or outside the native pattern), where it can connect
//! from (stdio and `environment` origin need a workspace, `service` origin needs `none`),
//! whether the harness speaks its transport, where a stdio server starts, and the declared
//! limits (origins, allowlists, required initialization, bearer credentials, tool names,
//! `${` expansion). Messages from core-contracts §5.2 keep their stored param `agent.tools`;
//! the rules the spec added name the member at fault.

use switchboard_execution::{ConnectionOrigin, McpTool, McpTransport, Placement, SessionSnapshot};

use super::{AdmissionError, tool_path};
use crate::{Declaration, McpTransportKind, ReservedWhen, StdioCwd};

/// The workspace directory of an `openai_hosted` Environment, where Claude Code (and so its
/// stdio servers) start. A `self_hosted` Environment names its own `workspace_directory`.
pub const HOSTED_WORKSPACE_DIRECTORY: &str = "/workspace";

const LABEL: &str = "The harness does not support this MCP server label.";
const STDIO_NEEDS_WORKSPACE: &str =
    "MCP stdio servers require a managed or self-hosted execution environment.";
const SERVICE_NEEDS_NONE: &str = "Service-origin MCP requires environment none.";
const ENVIRONMENT_NEEDS_WORKSPACE: &str =
    "Environment-origin MCP requires a managed or self-hosted execution environment.";
const NO_MCP: &str = "The harness does not support MCP tools.";
const STDIO_CWD_WORKSPACE: &str =
    "The configured engine starts MCP stdio servers in the workspace directory; set cwd to it.";
const STDIO_CWD_REJECTED: &str =
    "The configured engine cannot start MCP stdio servers in the declared cwd.";
const ORIGIN: &str = "The harness does not support this MCP connection origin.";
const ALLOWED_TOOLS_NULL: &str = "The harness requires allowed_tools null.";
const STDIO_ALLOWED_TOOLS_NULL: &str =
    "The harness requires allowed_tools null on MCP stdio servers.";
const REQUIRED: &str = "The harness does not support required MCP servers.";
const AUTHENTICATED: &str = "The harness does not support authenticated MCP servers.";
const TOOL_NAME: &str = "The harness does not support this MCP tool name.";
const URL_EXPANSION: &str = "The harness does not support '${' in an MCP server_url.";
const HEADER_EXPANSION: &str = "The harness does not support '${' in an MCP header value.";

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let has_functions = snapshot.functions().next().is_some();
    for (i, server) in snapshot.mcp_servers() {
        check_server(decl, &snapshot.placement, has_functions, i, server)?;
    }
    Ok(())
}

fn check_server(
    decl: &Declaration,
    placement: &Placement,
    has_functions: bool,
    i: usize,
    server: &McpTool,
) -> Result<(), AdmissionError> {
    let mcp = &decl.mcp;
    let at = |member: &str| format!("{}.{member}", tool_path(i));
    let reject = |message: &str| Err(AdmissionError::at("agent.tools", message));

    let label = server.server_label.as_str();
    let reserved = mcp.reserved_labels.iter().any(|r| {
        r.label == label
            && match r.when {
                ReservedWhen::Always => true,
                ReservedWhen::AgentHasFunctions => has_functions,
            }
    });
    if reserved || !mcp.label.matches(label) {
        return reject(LABEL);
    }

    let transport = McpTransportKind::of(&server.transport);
    let workspace = placement.is_workspace();
    if transport == McpTransportKind::Stdio && !workspace {
        return Err(AdmissionError::at(at("transport"), STDIO_NEEDS_WORKSPACE));
    }
    match server.connection_origin {
        ConnectionOrigin::Service if workspace => return reject(SERVICE_NEEDS_NONE),
        ConnectionOrigin::Environment if !workspace => return reject(ENVIRONMENT_NEEDS_WORKSPACE),
        _ => {}
    }

    if mcp.transports.is_empty() {
        return reject(NO_MCP);
    }
    if !mcp.transports.contains(&transport) {
        return Err(AdmissionError::at(
            at("transport"),
            format!(
                "The harness does not support MCP {} servers.",
                transport.as_str()
            ),
        ));
    }
    if let McpTransport::Stdio { cwd, .. } = &server.transport {
        match mcp.stdio_cwd {
            StdioCwd::Any => {}
            StdioCwd::WorkspaceDirectory => {
                if workspace_directory(placement).is_none_or(|dir| !same_directory(cwd, dir)) {
                    return Err(AdmissionError::at(at("transport.cwd"), STDIO_CWD_WORKSPACE));
                }
            }
            StdioCwd::Rejected => {
                return Err(AdmissionError::at(at("transport.cwd"), STDIO_CWD_REJECTED));
            }
        }
    }

    if !mcp.origins.contains(&server.connection_origin) {
        return reject(ORIGIN);
    }
    let allowlist = server.allowed_tools.as_deref();
    if allowlist.is_some() && !mcp.allowed_tools {
        return reject(ALLOWED_TOOLS_NULL);
    }
    if allowlist.is_some() && transport == McpTransportKind::Stdio && !mcp.allowed_tools_on_stdio {
        return Err(AdmissionError::at(
            at("allowed_tools"),
            STDIO_ALLOWED_TOOLS_NULL,
        ));
    }
    if server.required && !mcp.required_servers {
        return reject(REQUIRED);
    }
    if server.credential_id.is_some() && !mcp.bearer_auth {
        return reject(AUTHENTICATED);
    }
    if allowlist.is_some_and(|names| !names.iter().all(|name| mcp.tool_name.matches(name))) {
        return reject(TOOL_NAME);
    }

    if mcp.expands_env_references
        && let McpTransport::Http {
            server_url,
            headers,
        } = &server.transport
    {
        if server_url.contains("${") {
            return Err(AdmissionError::at(
                at("transport.server_url"),
                URL_EXPANSION,
            ));
        }
        if headers
            .values()
            .any(|v| v.as_str().is_some_and(|v| v.contains("${")))
        {
            return Err(AdmissionError::at(
                at("transport.headers"),
                HEADER_EXPANSION,
            ));
        }
    }
    Ok(())
}

/// The directory the harness process runs in on a workspace placement.
fn workspace_directory(placement: &Placement) -> Option<&str> {
    match placement {
        Placement::None => None,
        Placement::OpenaiHosted => Some(HOSTED_WORKSPACE_DIRECTORY),
        Placement::SelfHosted {
            workspace_directory,
        } => Some(workspace_directory),
    }
}

/// Two absolute paths naming the same directory, ignoring trailing slashes (`/work/` is
/// `/work`). No other normalization: `.` and `..` segments do not name the workspace.
fn same_directory(a: &str, b: &str) -> bool {
    let trim = |p: &str| {
        let t = p.trim_end_matches('/');
        if t.is_empty() {
            "/".to_owned()
        } else {
            t.to_owned()
        }
    };
    trim(a) == trim(b)
}
