//! Application functions as tools of the adapter's own in-process MCP server, `functions`.
//!
//! claude knows the server from `--mcp-config` (`{"type": "sdk"}`) and `initialize`'s
//! `sdkMcpServers`, and sends it MCP JSON-RPC inside `mcp_message` control requests; the answer
//! goes back in the control response's `mcp_response`. No port, no second process.
//!
//! The server is fixed for the Session: `tools/list` always lists the same definitions, each with
//! its schema unchanged and `_meta["anthropic/alwaysLoad"]` (true for eager functions, false for
//! deferred ones, which native ToolSearch then loads lazily). The model sees each as
//! `mcp__functions__<name>`; claude replaces characters outside `[A-Za-z0-9_-]` in that name,
//! so two functions that differ only there would collide and are refused up front.
//!
//! `tools/call` carries `_meta["claudecode/toolUseId"]`, the model's own `tool_use` id: it is the
//! call id, so the call, the native `tool_result` and the provider's history all agree on it.
//! Everything else (`initialize`, `tools/list`, notifications) is answered here at once, also
//! between Turns; calls and cancellations go to the running Turn.

use std::collections::HashSet;

use serde_json::{Map, Value, json};
use switchboard_protocol::{FunctionResultContent, FunctionToolSpec, ResultPart};

use crate::flags::FUNCTIONS_SERVER;

/// The `_meta` key claude reads to load a tool eagerly under tool search.
pub const ALWAYS_LOAD_META: &str = "anthropic/alwaysLoad";
/// The `_meta` key carrying the model's tool-use id on `tools/call`.
pub const TOOL_USE_ID_META: &str = "claudecode/toolUseId";

/// The `functions` server's fixed tool list.
#[derive(Debug, Clone)]
pub struct FunctionServer {
    tools: Value,
    names: HashSet<String>,
}

/// What an MCP message for the server needs.
#[derive(Debug, Clone, PartialEq)]
pub enum McpDispatch {
    /// Answer with this JSON-RPC message now.
    Reply(Value),
    /// A function call for the running Turn.
    Call(McpCall),
    /// claude gave up on an earlier `tools/call` (interrupt, session end); still needs a reply.
    Cancelled { mcp_id: Value, reply: Value },
}

/// A parsed `tools/call`.
#[derive(Debug, Clone, PartialEq)]
pub struct McpCall {
    /// The JSON-RPC id to answer.
    pub mcp_id: Value,
    pub name: String,
    /// The arguments as JSON text, exactly as claude sent them (lossless serde_json).
    pub arguments: String,
    /// The model's `tool_use` id, when claude sent it.
    pub tool_use_id: Option<String>,
}

impl FunctionServer {
    pub fn new(functions: &[FunctionToolSpec]) -> Self {
        let tools = functions
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "description": f.description,
                    "inputSchema": f.parameters,
                    "_meta": {ALWAYS_LOAD_META: !f.defer_loading},
                })
            })
            .collect();
        FunctionServer {
            tools: Value::Array(tools),
            names: functions.iter().map(|f| f.name.clone()).collect(),
        }
    }

    /// Handles one JSON-RPC message claude sent to the server.
    pub fn dispatch(&self, message: &Value) -> McpDispatch {
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(id) = message.get("id").cloned() else {
            // A notification. claude still waits for a control response; the SDK answers an
            // empty result, and so does this server.
            let reply = json!({"jsonrpc": "2.0", "result": {}, "id": 0});
            if method == "notifications/cancelled"
                && let Some(mcp_id) = message.pointer("/params/requestId")
            {
                return McpDispatch::Cancelled {
                    mcp_id: mcp_id.clone(),
                    reply,
                };
            }
            return McpDispatch::Reply(reply);
        };
        let result = match method {
            "initialize" => json!({
                "protocolVersion": message
                    .pointer("/params/protocolVersion")
                    .cloned()
                    .unwrap_or_else(|| json!("2025-06-18")),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": FUNCTIONS_SERVER, "version": env!("CARGO_PKG_VERSION")},
            }),
            "tools/list" => json!({"tools": self.tools}),
            "tools/call" => {
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                if !self.names.contains(name) {
                    return McpDispatch::Reply(json!({"jsonrpc": "2.0", "id": id, "result": {
                        "content": [{"type": "text", "text": format!("Unknown function `{name}`.")}],
                        "isError": true,
                    }}));
                }
                return McpDispatch::Call(McpCall {
                    mcp_id: id,
                    name: name.to_owned(),
                    arguments: params
                        .get("arguments")
                        .map(Value::to_string)
                        .unwrap_or_else(|| "{}".into()),
                    tool_use_id: params
                        .pointer("/_meta")
                        .and_then(|m| m.get(TOOL_USE_ID_META))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
            }
            "ping" => json!({}),
            other => {
                return McpDispatch::Reply(json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": format!("method not found: {other}"),
                }}));
            }
        };
        McpDispatch::Reply(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }
}

/// Why a result cannot be delivered to claude as MCP content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    #[error(
        "Claude Code takes only inline base64 images (data:image/png|jpeg|gif|webp;base64,…) in function results."
    )]
    ImageUrl,
    #[error("Claude Code does not keep images in a failed function result.")]
    FailedResultImage,
}

/// The MCP `tools/call` result for a function result: the content parts in order (the error
/// text last, as [`FunctionResultContent::parts`] says) and `isError` for an unsuccessful one.
pub fn call_result(result: &FunctionResultContent) -> Result<Value, ContentError> {
    let mut content = Vec::new();
    for part in result.parts() {
        match part {
            ResultPart::Text(text) => content.push(json!({"type": "text", "text": text})),
            ResultPart::ImageUrl(url) => {
                if !result.success {
                    return Err(ContentError::FailedResultImage);
                }
                let (mime, data) = inline_image(&url).ok_or(ContentError::ImageUrl)?;
                content.push(json!({"type": "image", "data": data, "mimeType": mime}));
            }
        }
    }
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(content));
    if !result.success {
        out.insert("isError".into(), Value::Bool(true));
    }
    Ok(Value::Object(out))
}

/// `(media type, base64 data)` of a `data:image/…;base64,` URL of a type Anthropic accepts.
pub fn inline_image(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    let accepted = ["image/png", "image/jpeg", "image/gif", "image/webp"];
    (accepted.contains(&mime) && !data.is_empty()).then_some((mime, data))
}

/// The name the model sees for a function (claude's normalization of MCP tool names,
/// JavaScript's `replace(/[^a-zA-Z0-9_-]/g, "_")`: one `_` per UTF-16 code unit, so a character
/// outside the Basic Multilingual Plane becomes `__`).
pub fn native_name(function: &str) -> String {
    let mut normalized = String::with_capacity(function.len());
    for c in function.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            normalized.push(c);
        } else {
            normalized.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    format!("mcp__{FUNCTIONS_SERVER}__{normalized}")
}

/// Checks what claude needs of the definitions: object-rooted parameter schemas (MCP
/// `inputSchema` is an object schema) and names that stay distinct once normalized. Session
/// admission refuses both earlier from the Claude Code declaration (`parameters_object_root`,
/// `native_tool_names`); `switchboard/tests/admission_table.rs` proves the two agree.
pub fn validate(functions: &[FunctionToolSpec]) -> Result<(), String> {
    let mut seen = HashSet::new();
    for f in functions {
        if f.name.is_empty() {
            return Err("function names must not be empty".into());
        }
        let object_root = f.parameters.get("type").and_then(Value::as_str) == Some("object");
        if !object_root {
            return Err(format!(
                "function `{}`: Claude Code needs a parameters schema with \"type\": \"object\" at its root",
                f.name
            ));
        }
        if !seen.insert(native_name(&f.name)) {
            return Err(format!(
                "function `{}` collides with another function once Claude Code normalizes its name to {}",
                f.name,
                native_name(&f.name)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::{FunctionOutput, InputPart};

    fn spec(name: &str, defer: bool) -> FunctionToolSpec {
        FunctionToolSpec {
            name: name.into(),
            description: "d".into(),
            parameters: serde_json::from_str(
                r#"{"type":"object","properties":{"x":{"type":"number","maximum":10.50}}}"#,
            )
            .unwrap(),
            defer_loading: defer,
        }
    }

    #[test]
    fn tools_list_marks_eager_and_deferred_and_keeps_schemas() {
        let server = FunctionServer::new(&[spec("a", false), spec("b", true)]);
        let McpDispatch::Reply(reply) =
            server.dispatch(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        else {
            panic!()
        };
        let tools = &reply["result"]["tools"];
        assert_eq!(tools[0]["_meta"][ALWAYS_LOAD_META], true);
        assert_eq!(tools[1]["_meta"][ALWAYS_LOAD_META], false);
        assert!(tools[0]["inputSchema"].to_string().contains("10.50"));
    }

    #[test]
    fn calls_carry_the_tool_use_id_and_exact_arguments() {
        let server = FunctionServer::new(&[spec("a", false)]);
        let message: Value = serde_json::from_str(
            r#"{"method":"tools/call","params":{"name":"a","arguments":{"x":1.50},"_meta":{"claudecode/toolUseId":"toolu_1","progressToken":2}},"jsonrpc":"2.0","id":2}"#,
        )
        .unwrap();
        assert_eq!(
            server.dispatch(&message),
            McpDispatch::Call(McpCall {
                mcp_id: json!(2),
                name: "a".into(),
                arguments: r#"{"x":1.50}"#.into(),
                tool_use_id: Some("toolu_1".into()),
            })
        );
        let cancelled = server.dispatch(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}));
        assert!(matches!(cancelled, McpDispatch::Cancelled { mcp_id, .. } if mcp_id == json!(2)));
    }

    #[test]
    fn results_keep_order_and_mark_errors() {
        let ok = FunctionResultContent {
            success: true,
            output: Some(FunctionOutput::Parts(vec![
                InputPart::InputText { text: "a".into() },
                InputPart::InputImage {
                    image_url: "data:image/png;base64,AAAA".into(),
                },
            ])),
            error: None,
        };
        assert_eq!(
            call_result(&ok).unwrap(),
            json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]})
        );
        let failed = FunctionResultContent {
            success: false,
            output: Some(FunctionOutput::Text("partial".into())),
            error: Some("boom".into()),
        };
        assert_eq!(
            call_result(&failed).unwrap(),
            json!({"content": [{"type": "text", "text": "partial"}, {"type": "text", "text": "boom"}], "isError": true})
        );
        let url = FunctionResultContent {
            success: true,
            output: Some(FunctionOutput::Parts(vec![InputPart::InputImage {
                image_url: "https://example.com/a.png".into(),
            }])),
            error: None,
        };
        assert_eq!(call_result(&url), Err(ContentError::ImageUrl));
    }

    #[test]
    fn validation_needs_object_roots_and_distinct_native_names() {
        assert!(validate(&[spec("get.weather", false), spec("other", false)]).is_ok());
        assert!(validate(&[spec("get.weather", false), spec("get_weather", false)]).is_err());
        assert_eq!(native_name("a😀"), "mcp__functions__a__");
        assert!(validate(&[spec("a😀", false), spec("a_", false)]).is_ok());
        assert!(validate(&[spec("a😀", false), spec("a__", false)]).is_err());
        let mut bad = spec("a", false);
        bad.parameters = json!({"properties": {}});
        assert!(validate(&[bad]).is_err());
    }
}
