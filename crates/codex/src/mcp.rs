//! The Session's HTTP MCP servers in codex's `[mcp_servers]` table, and codex's `mcpToolCall`
//! items as `mcp_call` observations.
//!
//! Each server reaches codex as the Runtime's credential gateway URL (the gateway adds the
//! bearer and the declared headers), so nothing secret is in codex's config or environment.
//! One `-c mcp_servers={…}` override declares them all as an inline table (labels are quoted
//! keys, so no label can split a dotted path): `url`, `enabled_tools` when `allowed_tools` is
//! a list (`[]` enables none; null leaves every tool on), `required`, and
//! `default_tools_approval_mode = "approve"` (under `approvalPolicy: never` codex refuses an
//! MCP call that needs approval and tells the model so).

use serde_json::Value;
use switchboard_protocol::{
    AdapterError, AdapterEvent, McpCall, McpCallStatus, SessionConfiguration,
};

use crate::overrides::toml_string;

/// Labels codex keeps for its own servers.
const RESERVED_LABELS: &[&str] = &["codex_apps"];

/// Rejects servers codex must not see: a bearer (only the gateway holds it), a reserved label,
/// or a label codex's connection manager refuses.
pub fn validate(config: &SessionConfiguration) -> Result<(), AdapterError> {
    let invalid = |m: String| Err(AdapterError::InvalidConfiguration(m));
    for server in &config.mcp_servers {
        let label = &server.server_label;
        if server.bearer.is_some() || !server.headers.is_empty() {
            return invalid(format!(
                "MCP server {label}: credentials and headers reach codex only through the Runtime's credential gateway"
            ));
        }
        if RESERVED_LABELS.contains(&label.as_str()) {
            return invalid(format!("MCP server label {label} is reserved by codex"));
        }
        let valid = !label.is_empty()
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return invalid(format!("codex cannot name an MCP server {label:?}"));
        }
    }
    Ok(())
}

/// The `-c` override that declares every server; none without servers.
pub fn overrides(config: &SessionConfiguration) -> Vec<String> {
    if config.mcp_servers.is_empty() {
        return Vec::new();
    }
    let tables: Vec<String> = config
        .mcp_servers
        .iter()
        .map(|server| {
            let mut fields = vec![
                format!("url={}", toml_string(&server.server_url)),
                format!("required={}", server.required),
                "default_tools_approval_mode=\"approve\"".to_owned(),
            ];
            if let Some(tools) = &server.allowed_tools {
                let names: Vec<String> = tools.iter().map(|t| toml_string(t)).collect();
                fields.push(format!("enabled_tools=[{}]", names.join(",")));
            }
            format!(
                "{}={{{}}}",
                toml_string(&server.server_label),
                fields.join(",")
            )
        })
        .collect();
    vec![format!("mcp_servers={{{}}}", tables.join(","))]
}

/// A `mcpToolCall` item as an observation, or `None` for another item.
pub fn observation(item: &Value) -> Option<AdapterEvent> {
    if item.get("type").and_then(Value::as_str) != Some("mcpToolCall") {
        return None;
    }
    let text = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_owned);
    let status = match item.get("status").and_then(Value::as_str) {
        Some("completed") => McpCallStatus::Completed,
        Some("failed") => McpCallStatus::Failed,
        _ => McpCallStatus::InProgress,
    };
    let arguments = match item.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "{}".to_owned(),
        Some(other) => other.to_string(),
    };
    let error = item.get("error").filter(|e| !e.is_null()).map(|e| {
        e.get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| e.as_str().map_or_else(|| e.to_string(), str::to_owned))
    });
    let output = item.get("result").filter(|r| !r.is_null()).map(result_text);
    Some(AdapterEvent::McpCall(McpCall {
        item_id: text("id").unwrap_or_default(),
        server_label: text("server").unwrap_or_default(),
        name: text("tool").unwrap_or_default(),
        arguments,
        output,
        error,
        status: if error_present(item) && status == McpCallStatus::Completed {
            McpCallStatus::Failed
        } else {
            status
        },
    }))
}

fn error_present(item: &Value) -> bool {
    item.get("error").is_some_and(|e| !e.is_null())
}

/// An MCP `CallToolResult` as the text the model read: its text parts in order, or the whole
/// result as JSON when it has none.
pub fn result_text(result: &Value) -> String {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if texts.is_empty() {
        result.to_string()
    } else {
        texts.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_completed_call_keeps_label_tool_arguments_and_text() {
        let item = json!({"type": "mcpToolCall", "id": "i1", "server": "lab", "tool": "get_weather",
            "arguments": {"city": "Paris"}, "status": "completed",
            "result": {"content": [{"type": "text", "text": "sunny"}]}, "error": null});
        let Some(AdapterEvent::McpCall(call)) = observation(&item) else {
            panic!("no observation")
        };
        assert_eq!(call.server_label, "lab");
        assert_eq!(call.name, "get_weather");
        assert_eq!(call.arguments, r#"{"city":"Paris"}"#);
        assert_eq!(call.output.as_deref(), Some("sunny"));
        assert_eq!(call.status, McpCallStatus::Completed);
    }
}
