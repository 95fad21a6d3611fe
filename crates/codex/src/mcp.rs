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
//!
//! Environment-origin HTTP servers join it with their own `url` and declared `http_headers`
//! (non-secret; they never carry a bearer): codex connects to them from the workspace.
//!
//! Stdio servers join the same table with `command`, `args`, `cwd` and `env_vars`: codex starts
//! them in the workspace (inside the sandbox on a managed one) with its restricted native
//! environment plus the variables `env_vars` names, which it reads from its own process
//! environment. The Runtime put their values there ([`ProcessPlacement::mcp_env`]); no value is
//! ever in an override or a config file.
//!
//! [`ProcessPlacement::mcp_env`]: switchboard_protocol::ProcessPlacement::mcp_env

use serde_json::Value;
use switchboard_protocol::{
    AdapterError, AdapterEvent, McpCall, McpCallStatus, McpServer, McpStdioServer,
    SessionConfiguration,
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
        validate_label(label)?;
    }
    for server in &config.mcp_environment_servers {
        if server.bearer.is_some() {
            return invalid(format!(
                "MCP server {}: a credential reaches codex only through the Runtime's credential gateway",
                server.server_label
            ));
        }
        validate_label(&server.server_label)?;
    }
    for server in &config.mcp_stdio_servers {
        validate_label(&server.server_label)?;
    }
    Ok(())
}

/// A label codex keeps for itself, or one its connection manager refuses.
fn validate_label(label: &str) -> Result<(), AdapterError> {
    let invalid = |m: String| Err(AdapterError::InvalidConfiguration(m));
    if RESERVED_LABELS.contains(&label) {
        return invalid(format!("MCP server label {label} is reserved by codex"));
    }
    let valid = !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid {
        return invalid(format!("codex cannot name an MCP server {label:?}"));
    }
    Ok(())
}

/// The `-c` override that declares every server; none without servers.
pub fn overrides(config: &SessionConfiguration) -> Vec<String> {
    if !declares_servers(config) {
        return Vec::new();
    }
    let environment = config.mcp_environment_servers.iter().map(environment_table);
    let http = config.mcp_servers.iter().map(|server| {
        let url = format!("url={}", toml_string(&server.server_url));
        table(
            &server.server_label,
            vec![url],
            server.required,
            &server.allowed_tools,
        )
    });
    let stdio = config.mcp_stdio_servers.iter().map(stdio_table);
    let tables: Vec<String> = http.chain(environment).chain(stdio).collect();
    vec![format!("mcp_servers={{{}}}", tables.join(","))]
}

/// One server's inline table: its transport `fields`, then what every server gets.
fn table(
    label: &str,
    mut fields: Vec<String>,
    required: bool,
    allowed_tools: &Option<Vec<String>>,
) -> String {
    fields.push(format!("required={required}"));
    fields.push("default_tools_approval_mode=\"approve\"".to_owned());
    if let Some(tools) = allowed_tools {
        fields.push(format!("enabled_tools={}", toml_strings(tools)));
    }
    format!("{}={{{}}}", toml_string(label), fields.join(","))
}

/// Whether the Session declares any MCP server.
fn declares_servers(config: &SessionConfiguration) -> bool {
    !(config.mcp_servers.is_empty()
        && config.mcp_environment_servers.is_empty()
        && config.mcp_stdio_servers.is_empty())
}

/// An environment-origin server's table: its own `url` and its declared headers.
fn environment_table(server: &McpServer) -> String {
    let mut fields = vec![format!("url={}", toml_string(&server.server_url))];
    if !server.headers.is_empty() {
        let headers: Vec<String> = server
            .headers
            .iter()
            .map(|(name, value)| {
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                format!("{}={}", toml_string(name), toml_string(&value))
            })
            .collect();
        fields.push(format!("http_headers={{{}}}", headers.join(",")));
    }
    table(
        &server.server_label,
        fields,
        server.required,
        &server.allowed_tools,
    )
}

/// A stdio server's table: `command`, `args`, `cwd` and the names in `env_vars`.
fn stdio_table(server: &McpStdioServer) -> String {
    let fields = vec![
        format!("command={}", toml_string(&server.command)),
        format!("args={}", toml_strings(&server.args)),
        format!("cwd={}", toml_string(&server.cwd)),
        format!("env_vars={}", toml_strings(&server.env_vars)),
    ];
    table(
        &server.server_label,
        fields,
        server.required,
        &server.allowed_tools,
    )
}

fn toml_strings(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|t| toml_string(t)).collect();
    format!("[{}]", items.join(","))
}

/// Checks, before the thread opens, that the configuration codex loaded keeps each declared
/// server as declared: its URL (the gateway's), no bearer reference or headers of its own, and
/// the declared tool selection. A config layer that moved a server fails the start.
pub async fn verify(
    connection: &crate::jsonrpc::Connection,
    config: &SessionConfiguration,
) -> Result<(), AdapterError> {
    if !declares_servers(config) {
        return Ok(());
    }
    let loaded = connection
        .request(
            "config/read",
            serde_json::json!({}),
            crate::launch::CONTROL_TIMEOUT,
        )
        .await
        .map_err(crate::turn::rpc_error)?;
    check_loaded(&loaded, config)
}

/// [`verify`]'s comparison of a `config/read` result with the declared servers.
fn check_loaded(loaded: &Value, config: &SessionConfiguration) -> Result<(), AdapterError> {
    let http = config.mcp_servers.iter().map(|s| (s, false));
    let environment = config.mcp_environment_servers.iter().map(|s| (s, true));
    for (server, own_headers) in http.chain(environment) {
        let label = &server.server_label;
        let native = loaded
            .pointer("/config/mcp_servers")
            .and_then(|s| s.get(label.as_str()))
            .cloned()
            .unwrap_or(Value::Null);
        let mismatch = |what: &str| {
            Err(AdapterError::InvalidConfiguration(format!(
                "codex's loaded configuration changes the {what} of MCP server {label}"
            )))
        };
        if native.get("url").and_then(Value::as_str) != Some(server.server_url.as_str()) {
            return mismatch("URL");
        }
        let present = |k: &str| native.get(k).is_some_and(|v| !v.is_null());
        if present("bearer_token_env_var") || present("bearer_token") {
            return mismatch("bearer reference");
        }
        let no_headers = |k: &str| {
            native
                .get(k)
                .is_none_or(|v| v.is_null() || v.as_object().is_some_and(|o| o.is_empty()))
        };
        // Through the gateway codex sends no header of its own; from the workspace exactly
        // the declared ones.
        let headers_kept = if own_headers && !server.headers.is_empty() {
            native.get("http_headers").and_then(Value::as_object) == Some(&server.headers)
        } else {
            no_headers("http_headers")
        };
        if !headers_kept || !no_headers("env_http_headers") {
            return mismatch("headers");
        }
        if !keeps_enabled_tools(&native, &server.allowed_tools) {
            return mismatch("enabled tools");
        }
    }
    for server in &config.mcp_stdio_servers {
        check_loaded_stdio(loaded, server)?;
    }
    Ok(())
}

/// The declared tool selection (`None`: nothing to keep, every tool stays on).
fn keeps_enabled_tools(native: &Value, allowed: &Option<Vec<String>>) -> bool {
    let Some(allowed) = allowed else {
        return true;
    };
    let loaded: Option<Vec<&str>> = native
        .get("enabled_tools")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect());
    loaded == Some(allowed.iter().map(String::as_str).collect())
}

/// A stdio server as declared: its command, args and cwd, exactly the declared `env_vars`
/// names, no literal `env` values of another layer's, no URL, and the tool selection.
fn check_loaded_stdio(loaded: &Value, server: &McpStdioServer) -> Result<(), AdapterError> {
    let label = &server.server_label;
    let native = loaded
        .pointer("/config/mcp_servers")
        .and_then(|s| s.get(label.as_str()))
        .cloned()
        .unwrap_or(Value::Null);
    let mismatch = |what: &str| {
        Err(AdapterError::InvalidConfiguration(format!(
            "codex's loaded configuration changes the {what} of MCP server {label}"
        )))
    };
    let text = |k: &str| native.get(k).and_then(Value::as_str);
    // A moved `url` would make codex connect elsewhere instead of starting the command.
    if text("command") != Some(server.command.as_str())
        || native.get("url").is_some_and(|v| !v.is_null())
    {
        return mismatch("command");
    }
    if strings(native.get("args")) != server.args {
        return mismatch("args");
    }
    if text("cwd") != Some(server.cwd.as_str()) {
        return mismatch("cwd");
    }
    let literal_env = native
        .get("env")
        .is_some_and(|v| !v.is_null() && v.as_object().is_none_or(|o| !o.is_empty()));
    if strings(native.get("env_vars")) != server.env_vars || literal_env {
        return mismatch("env_vars");
    }
    if !keeps_enabled_tools(&native, &server.allowed_tools) {
        return mismatch("enabled tools");
    }
    Ok(())
}

/// A list of strings (`null` or absent: empty); an `env_vars` entry may be a `{name}` table.
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| match item {
                    Value::String(s) => s.clone(),
                    other => other
                        .get("name")
                        .and_then(Value::as_str)
                        .map_or_else(|| other.to_string(), str::to_owned),
                })
                .collect()
        })
        .unwrap_or_default()
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

    fn declared(allowed: Option<Vec<String>>) -> SessionConfiguration {
        let mut config: SessionConfiguration = serde_json::from_value(json!({
            "harness": "codex", "model": "m", "instructions": null,
            "model_provider": {"protocol": "responses", "base_url": "http://127.0.0.1:1/v1",
                "api_key": "k", "context_window": null, "max_output_tokens": null},
            "function_tools": [], "tool_search": false, "execution_controls": {},
            "mcp_servers": [], "harness_config": null, "workspace": null,
        }))
        .unwrap();
        config.mcp_servers = vec![McpServer {
            server_label: "lab".into(),
            server_url: "http://127.0.0.1:5/s/0".into(),
            headers: Default::default(),
            allowed_tools: allowed,
            required: false,
            bearer: None,
        }];
        config
    }

    #[test]
    fn the_loaded_configuration_must_keep_each_declared_server() {
        let config = declared(Some(vec!["a".into()]));
        let loaded =
            |server: serde_json::Value| json!({"config": {"mcp_servers": {"lab": server}}});
        let kept =
            json!({"url": "http://127.0.0.1:5/s/0", "enabled_tools": ["a"], "http_headers": null});
        assert!(check_loaded(&loaded(kept), &config).is_ok());
        for (changed, what) in [
            (
                json!({"url": "http://elsewhere/mcp", "enabled_tools": ["a"]}),
                "URL",
            ),
            (
                json!({"url": "http://127.0.0.1:5/s/0", "enabled_tools": ["a"], "bearer_token_env_var": "T"}),
                "bearer reference",
            ),
            (
                json!({"url": "http://127.0.0.1:5/s/0", "enabled_tools": ["a"], "http_headers": {"X": "1"}}),
                "headers",
            ),
            (
                json!({"url": "http://127.0.0.1:5/s/0", "enabled_tools": ["a", "b"]}),
                "enabled tools",
            ),
        ] {
            let Err(AdapterError::InvalidConfiguration(m)) =
                check_loaded(&loaded(changed), &config)
            else {
                panic!("{what}: accepted")
            };
            assert!(m.contains(what), "{m}");
        }
        assert!(check_loaded(&json!({"config": {}}), &config).is_err());
    }

    fn stdio() -> SessionConfiguration {
        let mut config = declared(None);
        config.mcp_servers.clear();
        config.mcp_stdio_servers = vec![McpStdioServer {
            server_label: "labio".into(),
            command: "/bin/fixture".into(),
            args: vec!["--record".into(), "r.jsonl".into()],
            cwd: "/workspace".into(),
            env_vars: vec!["LAB_TOKEN".into()],
            allowed_tools: Some(vec!["get_time".into()]),
            required: true,
        }];
        config
    }

    #[test]
    fn a_stdio_server_is_declared_with_names_only() {
        let overrides = overrides(&stdio());
        assert_eq!(
            overrides,
            vec![
                r#"mcp_servers={"labio"={command="/bin/fixture",args=["--record","r.jsonl"],cwd="/workspace",env_vars=["LAB_TOKEN"],required=true,default_tools_approval_mode="approve",enabled_tools=["get_time"]}}"#
            ]
        );
    }

    #[test]
    fn the_loaded_configuration_must_keep_each_stdio_server() {
        let config = stdio();
        let loaded =
            |server: serde_json::Value| json!({"config": {"mcp_servers": {"labio": server}}});
        let kept = json!({"command": "/bin/fixture", "args": ["--record", "r.jsonl"],
            "cwd": "/workspace", "env_vars": ["LAB_TOKEN"], "env": null, "enabled_tools": ["get_time"]});
        assert!(check_loaded(&loaded(kept.clone()), &config).is_ok());
        let changed = |key: &str, value: serde_json::Value| {
            let mut server = kept.clone();
            server[key] = value;
            loaded(server)
        };
        for (tampered, what) in [
            (changed("command", json!("/bin/other")), "command"),
            (changed("url", json!("http://elsewhere/mcp")), "command"),
            (changed("args", json!(["--record", "elsewhere"])), "args"),
            (changed("cwd", json!("/tmp")), "cwd"),
            (
                changed("env_vars", json!(["LAB_TOKEN", "OPENAI_API_KEY"])),
                "env_vars",
            ),
            (changed("env", json!({"LAB_TOKEN": "forged"})), "env_vars"),
            (
                changed("enabled_tools", json!(["get_time", "get_news"])),
                "enabled tools",
            ),
        ] {
            let Err(AdapterError::InvalidConfiguration(m)) = check_loaded(&tampered, &config)
            else {
                panic!("{what}: accepted {tampered}")
            };
            assert!(m.contains(what) && m.contains("labio"), "{m}");
        }
        assert!(check_loaded(&json!({"config": {"mcp_servers": {}}}), &config).is_err());
    }

    #[test]
    fn an_environment_server_keeps_its_own_url_and_headers() {
        let mut config = declared(None);
        let mut server = config.mcp_servers.remove(0);
        server.server_url = "http://127.0.0.1:7/mcp".into();
        server.headers = serde_json::Map::from_iter([("X-Team".to_owned(), json!("docs"))]);
        config.mcp_environment_servers = vec![server];
        assert_eq!(
            overrides(&config),
            vec![
                r#"mcp_servers={"lab"={url="http://127.0.0.1:7/mcp",http_headers={"X-Team"="docs"},required=false,default_tools_approval_mode="approve"}}"#
            ]
        );
        let loaded = |headers: serde_json::Value| json!({"config": {"mcp_servers": {"lab": {"url": "http://127.0.0.1:7/mcp", "http_headers": headers}}}});
        assert!(check_loaded(&loaded(json!({"X-Team": "docs"})), &config).is_ok());
        for changed in [json!({"X-Team": "other"}), json!(null), json!({})] {
            assert!(check_loaded(&loaded(changed), &config).is_err());
        }
    }

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
