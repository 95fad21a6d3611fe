//! The public JSON of Sessions, Turns, Items and events (agents-api-wire §3, §7, §8).
//!
//! Everything a caller reads is built here, so a Session read, a list page and an SSE snapshot
//! can never disagree on a shape.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use switchboard_protocol::messages::Usage;

/// Session `status` (agents-api-wire §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Idle,
    InProgress,
    RequiresAction,
    Failed,
}

/// Turn `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    Queued,
    InProgress,
    Completed,
    Failed,
    Cancelled,
}

impl TurnStatus {
    /// The wire name (`in_progress`), as spans carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnStatus::Queued => "queued",
            TurnStatus::InProgress => "in_progress",
            TurnStatus::Completed => "completed",
            TurnStatus::Failed => "failed",
            TurnStatus::Cancelled => "cancelled",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TurnStatus::Completed | TurnStatus::Failed | TurnStatus::Cancelled
        )
    }
}

/// The one public Turn error: native causes are logged, never shown (core-contracts §6.7).
pub const EXECUTION_FAILED: &str = "The execution could not complete.";

/// A Turn, exactly as the API shows it; also its stored document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub id: String,
    pub object: String,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub subagent_id: Option<String>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub completed_at: Option<i64>,
    pub status: TurnStatus,
    pub error: Option<Value>,
    pub usage: Option<Value>,
}

impl Turn {
    pub fn new(id: String, session_id: String, agent_id: Option<String>, at: i64) -> Turn {
        Turn {
            id,
            object: "agent.session.turn".into(),
            session_id,
            agent_id,
            subagent_id: None,
            created_at: at,
            started_at: None,
            completed_at: None,
            status: TurnStatus::Queued,
            error: None,
            usage: None,
        }
    }

    /// The public Turn object (its serde shape, spelled out so it cannot fail).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "object": self.object,
            "session_id": self.session_id,
            "agent_id": self.agent_id,
            "subagent_id": self.subagent_id,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "completed_at": self.completed_at,
            "status": self.status,
            "error": self.error,
            "usage": self.usage,
        })
    }
}

/// A required action: a function call awaiting its result, or an offline self-hosted
/// Environment awaiting its Runtime (core-contracts §3.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RequiredAction {
    FunctionCall {
        /// The arguments as the model wrote them (JSON text).
        arguments: String,
        call_id: String,
        name: String,
        turn_id: String,
    },
    EnvironmentConnection {
        environment_id: String,
    },
}

impl RequiredAction {
    pub fn function_call(turn_id: &str, call_id: &str, name: &str, arguments: &str) -> Self {
        RequiredAction::FunctionCall {
            arguments: arguments.to_owned(),
            call_id: call_id.to_owned(),
            name: name.to_owned(),
            turn_id: turn_id.to_owned(),
        }
    }
}

/// `TokenUsage`.
pub fn usage_json(u: &Usage) -> Value {
    json!({
        "input_tokens": u.input_tokens,
        "input_tokens_details": { "cached_tokens": u.cached_input_tokens },
        "output_tokens": u.output_tokens,
        "output_tokens_details": { "reasoning_tokens": u.reasoning_output_tokens },
        "total_tokens": u.total_tokens,
    })
}

pub fn add_usage(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens + b.input_tokens,
        cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
        output_tokens: a.output_tokens + b.output_tokens,
        reasoning_output_tokens: a.reasoning_output_tokens + b.reasoning_output_tokens,
        total_tokens: a.total_tokens + b.total_tokens,
    }
}

/// A user message Item.
pub fn user_message_item(id: &str, turn_id: &str, content: Vec<Value>) -> Value {
    json!({
        "id": id, "type": "message", "turn_id": turn_id, "role": "user",
        "status": "completed", "phase": null, "content": content,
    })
}

/// An assistant message Item; `text` None means the opening shape (`content: []`).
pub fn assistant_message_item(
    id: &str,
    turn_id: &str,
    status: &str,
    phase: Option<&str>,
    text: Option<&str>,
) -> Value {
    let content = match text {
        Some(text) => json!([{ "type": "output_text", "text": text, "annotations": [] }]),
        None => json!([]),
    };
    json!({
        "id": id, "type": "message", "turn_id": turn_id, "role": "assistant",
        "status": status, "phase": phase, "content": content,
    })
}

pub fn function_call_item(
    id: &str,
    turn_id: &str,
    call_id: &str,
    name: &str,
    arguments: &str,
    status: &str,
) -> Value {
    json!({
        "id": id, "type": "function_call", "turn_id": turn_id, "call_id": call_id,
        "name": name, "arguments": arguments, "status": status,
    })
}

/// A function result Item: always carries `output` and `error` (null when not submitted).
pub fn function_call_output_item(
    id: &str,
    turn_id: &str,
    call_id: &str,
    output: Value,
    error: Value,
) -> Value {
    json!({
        "id": id, "type": "function_call_output", "turn_id": turn_id, "call_id": call_id,
        "output": output, "error": error, "status": "completed",
    })
}

pub fn reasoning_item(id: &str, turn_id: &str, text: Option<&str>, status: &str) -> Value {
    let summary = match text {
        Some(t) if !t.is_empty() => json!([{ "type": "summary_text", "text": t }]),
        _ => json!([]),
    };
    json!({ "id": id, "type": "reasoning", "turn_id": turn_id, "summary": summary, "status": status })
}

pub fn command_execution_item(
    id: &str,
    turn_id: &str,
    command: &str,
    output: Option<&str>,
    exit_code: Option<i64>,
    status: &str,
) -> Value {
    json!({
        "id": id, "type": "command_execution", "turn_id": turn_id, "command": command,
        "output": output, "exit_code": exit_code, "status": status,
    })
}

/// A native web search Item; `action` is null until the harness says what the search does.
pub fn web_search_call_item(id: &str, turn_id: &str, action: Value, status: &str) -> Value {
    json!({
        "id": id, "type": "web_search_call", "turn_id": turn_id, "action": action,
        "status": status,
    })
}

/// A native call to a declared MCP server (agents-api-wire §7): the declared label, the
/// server's own tool name, arguments text, the observed output or error.
pub fn mcp_call_item(
    id: &str,
    turn_id: &str,
    call: &switchboard_protocol::McpCall,
    status: &str,
) -> Value {
    json!({
        "id": id, "type": "mcp_call", "turn_id": turn_id, "server_label": call.server_label,
        "name": call.name, "arguments": call.arguments, "output": call.output,
        "error": call.error, "status": status,
    })
}

/// An event about a Turn: `{type, session_id, turn_id, …fields}`.
pub fn turn_event(
    kind: &str,
    session_id: &str,
    turn_id: &str,
    fields: Map<String, Value>,
) -> Value {
    let mut event = Map::new();
    event.insert("type".into(), json!(kind));
    event.insert("session_id".into(), json!(session_id));
    event.insert("turn_id".into(), json!(turn_id));
    event.extend(fields);
    Value::Object(event)
}

/// An event carrying a session snapshot: `{type, session}`. Built by moving the snapshot in:
/// `json!` would copy it through the serializer, key by key, and a snapshot holds the agent's
/// whole public form.
pub fn session_event(kind: &str, session: Value) -> Value {
    Value::Object(fields([("type", json!(kind)), ("session", session)]))
}

/// Builds a `Map` from `(key, value)` pairs.
pub fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}
