//! `{"type": "mcp"}`: one MCP server declaration (core-contracts §5.1).
//!
//! The tool-level members are read here; the `transport` (HTTP or stdio, saved or inline form)
//! is `mcp_transport`. Rules that relate two members run after every member was read, because
//! document order may put `connection_origin` before `transport`:
//!
//! - `connection_origin` defaults to `service` for HTTP and to `environment` for stdio, where it
//!   must be `environment`; a stdio server takes no `credential_id`.
//!
//! Single-member rules: `server_label` is nonempty (uniqueness within a Session is a harness
//! admission rule, not a protocol one); `allowed_tools` omitted or null permits every tool and
//! `[]` none, kept distinct end to end; `required` defaults to false; `credential_id` is null or
//! nonempty; a nonempty `request_metadata` is rejected, so the saved form always shows `{}`.

use serde_json::Map;

use crate::declarations::{ConnectionOrigin, McpTool, McpTransport};
use crate::error::ValidationError;
use crate::error_messages::{self, rule};
use crate::json_path::element_path;
use crate::object_reader::ObjectReader;
use crate::scalar;
use crate::tool_form::ToolForm;

const MEMBERS: &[&str] = &[
    "type",
    "server_label",
    "transport",
    "allowed_tools",
    "required",
    "connection_origin",
    "credential_id",
    "request_metadata",
];

const ORIGINS: &[(&str, ConnectionOrigin)] = &[
    ("service", ConnectionOrigin::Service),
    ("environment", ConnectionOrigin::Environment),
];

pub fn parse(obj: &ObjectReader, form: ToolForm) -> Result<McpTool, ValidationError> {
    let (mut server_label, mut transport, mut origin) = (None, None, None);
    let (mut allowed_tools, mut required, mut credential_id) = (None, false, None);
    obj.read(MEMBERS, |key, value, path| {
        match key {
            "server_label" => {
                let label = scalar::string(value, path)?;
                if label.is_empty() {
                    return Err(rule(path, error_messages::MCP_SERVER_LABEL));
                }
                server_label = Some(label.to_string());
            }
            "transport" => transport = Some(crate::mcp_transport::parse(value, path, form)?),
            "allowed_tools" => allowed_tools = allowed_tool_names(value, path)?,
            "required" => required = scalar::boolean(value, path)?,
            "connection_origin" => origin = scalar::nullable_choice(value, path, ORIGINS)?,
            "credential_id" => {
                credential_id = scalar::nullable_string(value, path)?.map(str::to_string);
                if credential_id.as_deref() == Some("") {
                    return Err(rule(path, error_messages::MCP_CREDENTIAL_ID));
                }
            }
            "request_metadata" => empty_request_metadata(value, path)?,
            _ => {}
        }
        Ok(())
    })?;
    let server_label = obj.required(server_label, "server_label")?;
    let transport = obj.required(transport, "transport")?;
    let connection_origin = match (&transport, origin) {
        (McpTransport::Http { .. }, origin) => origin.unwrap_or(ConnectionOrigin::Service),
        (McpTransport::Stdio { .. }, None | Some(ConnectionOrigin::Environment)) => {
            ConnectionOrigin::Environment
        }
        (McpTransport::Stdio { .. }, Some(ConnectionOrigin::Service)) => {
            return Err(rule(
                &obj.member("connection_origin"),
                error_messages::MCP_STDIO_ORIGIN,
            ));
        }
    };
    if matches!(transport, McpTransport::Stdio { .. }) && credential_id.is_some() {
        return Err(rule(
            &obj.member("credential_id"),
            error_messages::MCP_STDIO_CREDENTIAL,
        ));
    }
    Ok(McpTool {
        server_label,
        transport,
        connection_origin,
        allowed_tools,
        required,
        credential_id,
        request_metadata: Map::new(),
    })
}

/// Only null or `{}`: request metadata is not supported yet.
fn empty_request_metadata(value: &serde_json::Value, path: &str) -> Result<(), ValidationError> {
    if value.is_null() || scalar::free_object(value, path)?.is_empty() {
        Ok(())
    } else {
        Err(rule(path, error_messages::MCP_REQUEST_METADATA))
    }
}

/// `None` for omitted or null (every tool), `Some` of nonempty names otherwise (`[]`: none).
fn allowed_tool_names(
    value: &serde_json::Value,
    path: &str,
) -> Result<Option<Vec<String>>, ValidationError> {
    let Some(names) = scalar::nullable_string_array(value, path)? else {
        return Ok(None);
    };
    if let Some(i) = names.iter().position(String::is_empty) {
        return Err(rule(
            &element_path(path, i),
            error_messages::MCP_ALLOWED_TOOL_NAME,
        ));
    }
    Ok(Some(names))
}
