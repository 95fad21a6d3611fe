//! The Session's HTTP MCP servers on claude: strict config, a static inventory, the adapter's
//! own `allowed_tools` filter, and the model's calls as `mcp_call` observations.
//!
//! Each server reaches claude as the Runtime's credential gateway URL (the gateway adds the
//! bearer and the declared headers), with a blank `Authorization` header of its own so
//! claude's native OAuth never starts; nothing secret is on claude's argv or environment.
//!
//! At preparation the adapter reads each server's inventory once (`initialize`, `tools/list`
//! through the gateway): claude's inventories are static for the Session. A server that does
//! not answer is skipped when optional (the Session runs without its tools, as claude does
//! natively) and fails the start when `required`. `allowed_tools` is the adapter's to enforce
//! (claude has no per-server allowlist): every listed tool outside it goes to
//! `--disallowedTools`, and `[]` disallows the whole server; null keeps every tool.
//!
//! Environment-origin HTTP servers keep their own URL and declared headers (non-secret; no
//! bearer): claude connects to them from the workspace, and the adapter reads their inventory
//! from the same machine with the same headers.
//!
//! Stdio servers are `{"type": "stdio", command, args}` entries of the same strict config:
//! claude starts them in its own working directory, the workspace directory (admission makes
//! `cwd` name it), with its whole process environment, which holds the Environment's values of
//! their `env_vars` (the Runtime put them there); no value is written to the config. Their
//! `allowed_tools` is null (admission), and their inventory is claude's own, so a stdio
//! server's calls are recognized by its `mcp__<label>__` prefix.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Map, Value, json};
use switchboard_protocol::{
    AdapterError, AdapterEvent, McpCall, McpCallStatus, McpServer, McpStdioServer,
    SessionConfiguration,
};

use crate::flags::FUNCTIONS_SERVER;

/// How long a server's inventory may take.
const INVENTORY_TIMEOUT: Duration = Duration::from_secs(20);

/// Rejects servers claude must not see: a bearer or header (only the gateway holds them), a
/// label outside ASCII letters, digits, `_` and `-` or equal to `functions`, and `${` in the
/// URL (claude would expand it from its environment).
pub fn validate(config: &SessionConfiguration) -> Result<(), AdapterError> {
    let invalid = |m: String| Err(AdapterError::InvalidConfiguration(m));
    for server in &config.mcp_servers {
        let label = &server.server_label;
        if server.bearer.is_some() || !server.headers.is_empty() {
            return invalid(format!(
                "MCP server {label}: credentials and headers reach claude only through the Runtime's credential gateway"
            ));
        }
        let valid = !label.is_empty()
            && label != FUNCTIONS_SERVER
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return invalid(format!("claude cannot name an MCP server {label:?}"));
        }
        if server.server_url.contains("${") {
            return invalid(format!(
                "MCP server {label}: claude rejects ${{ in server_url"
            ));
        }
    }
    validate_environment(config)?;
    validate_stdio(config)
}

/// Environment-origin servers: a label claude can name, no bearer, and no `${` in the URL or
/// a header value (claude would expand it from its environment).
fn validate_environment(config: &SessionConfiguration) -> Result<(), AdapterError> {
    let invalid = |m: String| Err(AdapterError::InvalidConfiguration(m));
    for server in &config.mcp_environment_servers {
        let label = &server.server_label;
        if server.bearer.is_some() {
            return invalid(format!(
                "MCP server {label}: a credential reaches claude only through the Runtime's credential gateway"
            ));
        }
        if !valid_label(label) {
            return invalid(format!("claude cannot name an MCP server {label:?}"));
        }
        let expands = server.server_url.contains("${")
            || server
                .headers
                .values()
                .any(|v| v.as_str().is_none_or(|v| v.contains("${")));
        if expands {
            return invalid(format!(
                "MCP server {label}: claude rejects ${{ in server_url and header values"
            ));
        }
    }
    Ok(())
}

fn valid_label(label: &str) -> bool {
    !label.is_empty()
        && label != FUNCTIONS_SERVER
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Stdio servers: a label claude can name, and no `allowed_tools` list (claude cannot hide a
/// stdio server's tools; admission already requires null).
fn validate_stdio(config: &SessionConfiguration) -> Result<(), AdapterError> {
    let invalid = |m: String| Err(AdapterError::InvalidConfiguration(m));
    for server in &config.mcp_stdio_servers {
        let label = &server.server_label;
        let valid = !label.is_empty()
            && label != FUNCTIONS_SERVER
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return invalid(format!("claude cannot name an MCP server {label:?}"));
        }
        if server.allowed_tools.is_some() {
            return invalid(format!(
                "MCP server {label}: claude requires allowed_tools null on stdio servers"
            ));
        }
    }
    Ok(())
}

/// What the inventory decided, fixed for the Session.
#[derive(Debug, Clone, Default)]
pub struct McpPlan {
    /// The servers claude connects to (optional ones that did not answer are left out).
    pub servers: Vec<McpServer>,
    /// Native tool names hidden from the model (`--disallowedTools`).
    pub disallowed: Vec<String>,
    /// Native tool name → (server label, the server's own tool name); for a stdio server the
    /// `mcp__<label>__` prefix → (label, "") ([`McpCalls`] takes the tool from the name).
    pub names: HashMap<String, (String, String)>,
    /// The stdio servers claude starts itself.
    pub stdio: Vec<McpStdioServer>,
}

impl McpPlan {
    /// Reads every server's inventory; fails only for a required server that did not answer.
    pub async fn prepare(config: &SessionConfiguration) -> Result<McpPlan, AdapterError> {
        let mut plan = McpPlan::default();
        plan.add_stdio(&config.mcp_stdio_servers);
        if config.mcp_servers.is_empty() && config.mcp_environment_servers.is_empty() {
            return Ok(plan);
        }
        let client = client()?;
        let servers = config.mcp_servers.iter();
        for server in servers.chain(config.mcp_environment_servers.iter()) {
            let label = &server.server_label;
            let tools = match inventory(&client, &server.server_url, &server.headers).await {
                Ok(tools) => tools,
                Err(reason) if server.required => {
                    return Err(AdapterError::Launch(format!(
                        "required MCP server {label} did not initialize: {reason}"
                    )));
                }
                Err(reason) => {
                    tracing::info!(server = %label, %reason, "an optional MCP server is skipped");
                    continue;
                }
            };
            match &server.allowed_tools {
                Some(allowed) if allowed.is_empty() => plan.disallowed.push(server_rule(label)),
                _ => {}
            }
            for tool in tools {
                let native = native_tool_name(label, &tool);
                if let Some((_, other)) = plan.names.get(&native) {
                    // claude would offer one of the two under that name: refuse to guess.
                    return Err(AdapterError::InvalidConfiguration(format!(
                        "MCP server {label}: tools {other:?} and {tool:?} have the same name in claude ({native})"
                    )));
                }
                if !server.allows(&tool)
                    && server.allowed_tools.as_ref().is_some_and(|a| !a.is_empty())
                {
                    plan.disallowed.push(native.clone());
                }
                plan.names.insert(native, (label.clone(), tool));
            }
            plan.servers.push(server.clone());
        }
        Ok(plan)
    }

    fn add_stdio(&mut self, servers: &[McpStdioServer]) {
        for server in servers {
            let label = &server.server_label;
            self.names
                .insert(stdio_prefix(label), (label.clone(), String::new()));
            self.stdio.push(server.clone());
        }
    }

    /// Before every launch of claude (the first and each cold resume): each required server
    /// must answer, or the start fails with the Session's history untouched. claude itself
    /// would run on without it.
    pub async fn check_required(&self) -> Result<(), AdapterError> {
        let required: Vec<&McpServer> = self.servers.iter().filter(|s| s.required).collect();
        if required.is_empty() {
            return Ok(());
        }
        let client = client()?;
        for server in required {
            if let Err(reason) = inventory(&client, &server.server_url, &server.headers).await {
                return Err(AdapterError::Launch(format!(
                    "required MCP server {} did not initialize: {reason}",
                    server.server_label
                )));
            }
        }
        Ok(())
    }

    /// After each launch: claude connects stdio servers itself, so the adapter asks it
    /// (`mcp_status`) until every required stdio server is connected, and fails the start when
    /// one failed or is still not connected after [`INVENTORY_TIMEOUT`]. An optional one that
    /// failed is left out by claude, and the Turn runs without its tools.
    pub async fn check_required_stdio(
        &self,
        connection: &crate::stream::Connection,
    ) -> Result<(), AdapterError> {
        let required: Vec<&str> = self
            .stdio
            .iter()
            .filter(|s| s.required)
            .map(|s| s.server_label.as_str())
            .collect();
        if required.is_empty() {
            return Ok(());
        }
        let deadline = tokio::time::Instant::now() + INVENTORY_TIMEOUT;
        loop {
            let status = connection
                .request(json!({"subtype": "mcp_status"}), INVENTORY_TIMEOUT)
                .await
                .map_err(|e| AdapterError::Launch(format!("claude's MCP status: {e}")))?;
            let of = |label: &str| {
                status["mcpServers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|s| s["name"] == label)
                    .and_then(|s| s["status"].as_str())
                    .unwrap_or("pending")
                    .to_owned()
            };
            let mut waiting = false;
            for label in &required {
                match of(label).as_str() {
                    "connected" => {}
                    "pending" => waiting = true,
                    other => {
                        return Err(AdapterError::Launch(format!(
                            "required MCP server {label} did not initialize: claude reports it {other}"
                        )));
                    }
                }
            }
            if !waiting {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(AdapterError::Launch(format!(
                    "required MCP server {} did not initialize in time",
                    required.join(", ")
                )));
            }
            // claude offers no notification when a server connects: ask again shortly.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `--mcp-config` entries for the kept servers.
    pub fn config_entries(&self) -> Map<String, Value> {
        self.servers
            .iter()
            .map(|s| {
                // Blank, so claude never attaches an OAuth token of its own; then the
                // declared headers (only environment-origin servers keep any).
                let mut headers = Map::from_iter([("Authorization".to_owned(), json!(""))]);
                headers.extend(s.headers.clone());
                let entry = json!({"type": "http", "url": s.server_url, "headers": headers});
                (s.server_label.clone(), entry)
            })
            .chain(self.stdio.iter().map(stdio_entry))
            .collect()
    }

    /// The `--allowedTools` rules that pre-approve the kept servers' tools.
    pub fn approvals(&self) -> Vec<String> {
        let http = self.servers.iter().map(|s| &s.server_label);
        let stdio = self.stdio.iter().map(|s| &s.server_label);
        http.chain(stdio).map(|label| server_rule(label)).collect()
    }

    /// Adds the kept servers to the command line `flags` built: their entries in the
    /// `--mcp-config` JSON, their approvals in `--allowedTools`, and `--disallowedTools` when
    /// something is hidden.
    pub fn extend_arguments(&self, args: &mut Vec<String>) {
        if self.servers.is_empty() && self.stdio.is_empty() {
            return;
        }
        if let Some(at) = args.iter().position(|a| a == "--mcp-config")
            && let Some(value) = args.get_mut(at + 1)
            && let Ok(mut config) = serde_json::from_str::<Value>(value)
            && let Some(servers) = config["mcpServers"].as_object_mut()
        {
            servers.extend(self.config_entries());
            *value = config.to_string();
        }
        let approvals = self.approvals().join(",");
        match args.iter_mut().find(|a| a.starts_with("--allowedTools=")) {
            Some(allowed) => {
                allowed.push(',');
                allowed.push_str(&approvals);
            }
            None => args.push(format!("--allowedTools={approvals}")),
        }
        if !self.disallowed.is_empty() {
            args.push(format!("--disallowedTools={}", self.disallowed.join(",")));
        }
    }
}

fn client() -> Result<reqwest::Client, AdapterError> {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(INVENTORY_TIMEOUT)
        .build()
        .map_err(|e| AdapterError::Launch(format!("no HTTP client for MCP: {e}")))
}

/// A stdio server's strict-config entry: no `env` (the values are in claude's environment)
/// and no `cwd` (claude starts it in its own, the workspace directory).
fn stdio_entry(server: &McpStdioServer) -> (String, Value) {
    let entry = json!({"type": "stdio", "command": server.command, "args": server.args});
    (server.server_label.clone(), entry)
}

fn stdio_prefix(label: &str) -> String {
    format!("mcp__{label}__")
}

fn server_rule(label: &str) -> String {
    format!("mcp__{label}")
}

/// claude's name for an MCP tool: `mcp__<label>__<tool>` with every UTF-16 unit outside
/// `[A-Za-z0-9_-]` replaced by `_` (labels are already in that alphabet).
pub fn native_tool_name(label: &str, tool: &str) -> String {
    let mut normalized = String::with_capacity(tool.len());
    for c in tool.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            normalized.push(c);
        } else {
            normalized.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    format!("mcp__{label}__{normalized}")
}

/// `initialize`, `notifications/initialized`, `tools/list` (with pagination) on one server.
async fn inventory(
    client: &reqwest::Client,
    url: &str,
    headers: &Map<String, Value>,
) -> Result<Vec<String>, String> {
    let mut session: Option<String> = None;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "switchboard", "version": env!("CARGO_PKG_VERSION")},
    }});
    rpc(client, url, headers, &mut session, &init).await?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    rpc(client, url, headers, &mut session, &initialized).await?;
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 2..100 {
        let mut params = json!({});
        if let Some(c) = cursor.take() {
            params["cursor"] = c;
        }
        let list = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        let result = rpc(client, url, headers, &mut session, &list)
            .await?
            .ok_or("tools/list had no result")?;
        for tool in result["tools"].as_array().into_iter().flatten() {
            if let Some(name) = tool["name"].as_str() {
                tools.push(name.to_owned());
            }
        }
        match result.get("nextCursor").filter(|c| !c.is_null()) {
            Some(c) => cursor = Some(c.clone()),
            None => break,
        }
    }
    if let Some(id) = &session {
        // Closing our inventory session is a courtesy; claude opens its own.
        let mut delete = client.delete(url);
        for (name, value) in headers {
            delete = delete.header(name.as_str(), value.as_str().unwrap_or_default());
        }
        let _ = delete
            .header("Authorization", "")
            .header("mcp-session-id", id)
            .send()
            .await;
    }
    Ok(tools)
}

/// One JSON-RPC message; the result of a request (`None` for a notification).
async fn rpc(
    client: &reqwest::Client,
    url: &str,
    headers: &Map<String, Value>,
    session: &mut Option<String>,
    message: &Value,
) -> Result<Option<Value>, String> {
    let mut request = client.post(url);
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str().unwrap_or_default());
    }
    let mut request = request
        .header("Authorization", "")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(message.to_string());
    if let Some(id) = session.as_deref() {
        request = request.header("mcp-session-id", id);
    }
    let response = request
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("HTTP {status}"));
    }
    if let Some(id) = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        *session = Some(id.to_owned());
    }
    if message.get("id").is_none() {
        return Ok(None);
    }
    let sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let text = response.text().await.map_err(|e| e.to_string())?;
    let reply: Value = if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| m.get("id") == message.get("id"))
            .ok_or("no reply in the event stream")?
    } else {
        serde_json::from_str(&text).map_err(|e| format!("not JSON-RPC: {e}"))?
    };
    if let Some(error) = reply.get("error") {
        return Err(format!("error {error}"));
    }
    Ok(reply.get("result").cloned())
}

/// The model's calls to declared servers in one Turn: a `tool_use` opens one, its
/// `tool_result` closes it (`is_error` means it failed). The tool-use id is the item id.
#[derive(Default)]
pub struct McpCalls {
    names: std::sync::Arc<HashMap<String, (String, String)>>,
    open: HashMap<String, McpCall>,
}

impl McpCalls {
    pub fn new(names: std::sync::Arc<HashMap<String, (String, String)>>) -> Self {
        McpCalls {
            names,
            open: HashMap::new(),
        }
    }

    /// The declared server and tool a native name belongs to: an HTTP server's tool by its
    /// exact name, a stdio server's by its label prefix (the tool is the rest of the name).
    fn server_tool(&self, native: &str) -> Option<(String, String)> {
        if let Some(found) = self.names.get(native) {
            return (!found.1.is_empty()).then(|| found.clone());
        }
        self.names.iter().find_map(|(prefix, (label, tool))| {
            let rest = native.strip_prefix(prefix.as_str())?;
            (tool.is_empty() && !rest.is_empty()).then(|| (label.clone(), rest.to_owned()))
        })
    }

    /// The blocks of a root `assistant` message.
    pub fn assistant(&mut self, message: &Value, out: &mut Vec<AdapterEvent>) {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_use" {
                continue;
            }
            let (Some(id), Some(name)) = (block["id"].as_str(), block["name"].as_str()) else {
                continue;
            };
            let Some((label, tool)) = self.server_tool(name) else {
                continue;
            };
            let call = McpCall {
                item_id: id.to_owned(),
                server_label: label.clone(),
                name: tool.clone(),
                arguments: block
                    .get("input")
                    .map_or_else(|| "{}".into(), Value::to_string),
                output: None,
                error: None,
                status: McpCallStatus::InProgress,
            };
            self.open.insert(id.to_owned(), call.clone());
            out.push(AdapterEvent::McpCall(call));
        }
    }

    /// The content of a root `user` message: the results of MCP calls.
    pub fn user(&mut self, content: &[Value], out: &mut Vec<AdapterEvent>) {
        for block in content.iter().filter(|b| b["type"] == "tool_result") {
            let Some(mut call) = block["tool_use_id"]
                .as_str()
                .and_then(|id| self.open.remove(id))
            else {
                continue;
            };
            let text = result_text(&block["content"]);
            if block["is_error"].as_bool() == Some(true) {
                call.status = McpCallStatus::Failed;
                call.error = Some(text);
            } else {
                call.status = McpCallStatus::Completed;
                call.output = Some(text);
            }
            out.push(AdapterEvent::McpCall(call));
        }
    }
}

/// A `tool_result`'s content as text: a string as is, text blocks joined.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_names_replace_each_utf16_unit_outside_the_alphabet() {
        assert_eq!(
            native_tool_name("lab", "get.weather"),
            "mcp__lab__get_weather"
        );
        assert_eq!(native_tool_name("lab", "a😀"), "mcp__lab__a__");
    }

    #[test]
    fn a_tool_result_closes_its_call_with_the_observed_text() {
        let names = std::sync::Arc::new(HashMap::from([(
            "mcp__lab__get_weather".to_owned(),
            ("lab".to_owned(), "get_weather".to_owned()),
        )]));
        let mut calls = McpCalls::new(names);
        let mut out = Vec::new();
        calls.assistant(
            &json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__lab__get_weather", "input": {"city": "Paris"}},
                                 {"type": "tool_use", "id": "toolu_2", "name": "mcp__functions__f", "input": {}}]}),
            &mut out,
        );
        calls.user(
            &[
                json!({"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
                     "content": [{"type": "text", "text": "boom"}]}),
            ],
            &mut out,
        );
        let [AdapterEvent::McpCall(open), AdapterEvent::McpCall(done)] = out.as_slice() else {
            panic!("{out:?}")
        };
        assert_eq!(
            (open.status, open.arguments.as_str()),
            (McpCallStatus::InProgress, r#"{"city":"Paris"}"#)
        );
        assert_eq!(
            (done.status, done.error.as_deref(), done.output.as_deref()),
            (McpCallStatus::Failed, Some("boom"), None)
        );
        assert_eq!(
            (done.server_label.as_str(), done.name.as_str()),
            ("lab", "get_weather")
        );
    }
}
