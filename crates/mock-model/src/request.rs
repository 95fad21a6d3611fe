//! One view of a model request, whichever protocol carried it.
//!
//! Rules and the built-in default reason about *what the conversation says* (the last item, the
//! tools on offer, tool outputs in this turn, a requested JSON schema), not about wire shapes.
//! Each protocol module parses its body into a [`RequestView`]; everything downstream is shared.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The three model APIs the mock speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// OpenAI Responses, `POST /v1/responses` (Codex).
    Responses,
    /// Anthropic Messages, `POST /v1/messages` (Claude Code).
    Anthropic,
    /// OpenAI Chat Completions, `POST /v1/chat/completions`.
    Chat,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Responses => "responses",
            Protocol::Anthropic => "anthropic",
            Protocol::Chat => "chat",
        }
    }
}

/// What an input item is, across protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    User,
    Assistant,
    System,
    Developer,
    /// The model asked for a tool (`function_call`, `tool_use`, `tool_calls`).
    ToolCall,
    /// A tool answered (`function_call_output`, `tool_result`, a `tool` role message).
    ToolOutput,
    /// Anything else (reasoning items, images, unknown types).
    Other,
}

impl ItemKind {
    /// The kind of a message with this role.
    pub fn from_role(role: &str) -> Self {
        match role {
            "user" => ItemKind::User,
            "assistant" => ItemKind::Assistant,
            "system" => ItemKind::System,
            "developer" => ItemKind::Developer,
            "tool" | "function" => ItemKind::ToolOutput,
            _ => ItemKind::Other,
        }
    }
}

/// An input item reduced to what rules look at.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    pub text: String,
}

/// A tool the request offers to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    pub name: String,
    /// The Responses namespace it lives in (Codex MCP tools), if any.
    pub namespace: Option<String>,
    /// Its JSON schema for arguments, when it is a callable function.
    pub schema: Option<Value>,
    /// `defer_loading: true`: only named until tool search loads it, so calling it straight
    /// away fails. It stays deferred in later requests; a `tool_reference` result is what
    /// says it was loaded.
    pub deferred: bool,
}

impl OfferedTool {
    /// True when `name` designates this tool: its own name, or `<namespace>__<name>`, which is
    /// also how Claude Code spells MCP tools, so one rule can serve both harnesses.
    pub fn answers_to(&self, name: &str) -> bool {
        if self.name == name {
            return true;
        }
        match &self.namespace {
            Some(ns) => name
                .strip_prefix(ns.as_str())
                .and_then(|rest| rest.strip_prefix("__"))
                .is_some_and(|rest| rest == self.name),
            None => false,
        }
    }

    /// A function tool: it has an argument schema (server tools have none).
    pub fn is_function(&self) -> bool {
        self.schema.is_some()
    }
}

/// A tool output found in the current turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// Its text; array outputs are joined with newlines, `tool_reference` blocks contribute
    /// the referenced tool's name.
    pub text: String,
    /// Tools loaded by a Claude Code `ToolSearch` result (`tool_reference` blocks).
    pub references: Vec<String>,
}

/// A request for a JSON-schema-shaped final answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerSchema {
    pub schema: Value,
    /// Set when the answer is delivered by calling this tool (Claude Code's `StructuredOutput`)
    /// rather than as text.
    pub via_tool: Option<String>,
}

/// Everything the scenario engine needs to know about one model request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestView {
    pub protocol: Protocol,
    pub model: String,
    pub stream: bool,
    /// The last input item, if the input is not empty.
    pub last: Option<Item>,
    /// The text of the last user message that opened the current turn.
    pub last_user_text: Option<String>,
    pub tools: Vec<OfferedTool>,
    /// Tool outputs after the last user message, in order.
    pub turn_outputs: Vec<ToolOutput>,
    pub answer_schema: Option<AnswerSchema>,
    /// Tools Claude Code announced as loadable through `ToolSearch`.
    pub deferred_tools: Vec<String>,
    pub input_tokens: u64,
    /// Chat Completions `stream_options.include_usage`.
    pub include_usage: bool,
}

impl RequestView {
    pub fn new(protocol: Protocol) -> Self {
        RequestView {
            protocol,
            model: String::new(),
            stream: false,
            last: None,
            last_user_text: None,
            tools: Vec::new(),
            turn_outputs: Vec::new(),
            answer_schema: None,
            deferred_tools: Vec::new(),
            input_tokens: 0,
            include_usage: false,
        }
    }

    /// Starts a view from the members every protocol shares: the body must be an object with
    /// a string `model`; `stream` is an optional boolean.
    pub fn open(protocol: Protocol, body: &Value) -> Result<Self, String> {
        if !body.is_object() {
            return Err("request body must be a JSON object".into());
        }
        let mut view = RequestView::new(protocol);
        view.model = required_model(body)?;
        view.stream = optional_bool(body, "stream")?;
        Ok(view)
    }

    /// Fills the conversation members from a flat item list whose current turn starts after
    /// `turn_start` (the user message that opened it).
    pub fn set_items(&mut self, items: &[Item], turn_start: Option<usize>) {
        self.last_user_text = turn_start.map(|start| items[start].text.clone());
        self.turn_outputs = items[turn_start.map_or(0, |s| s + 1)..]
            .iter()
            .filter(|i| i.kind == ItemKind::ToolOutput)
            .map(|i| ToolOutput {
                text: i.text.clone(),
                references: Vec::new(),
            })
            .collect();
        self.last = items.last().cloned();
    }

    pub fn find_tool(&self, name: &str) -> Option<&OfferedTool> {
        self.tools.iter().find(|t| t.answers_to(name))
    }
}

/// Reads a text-bearing `content` member: a string, or an array of parts whose `text` members
/// are joined with newlines.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Reads an optional boolean member, rejecting other types.
fn optional_bool(body: &Value, key: &str) -> Result<bool, String> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(format!("'{key}' must be a boolean")),
    }
}

/// Reads the required string `model` member.
fn required_model(body: &Value) -> Result<String, String> {
    match body.get("model") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err("'model' must be a string".into()),
        None => Err("missing required parameter: 'model'".into()),
    }
}

/// Whether a tool declaration carries `defer_loading: true`.
pub fn is_deferred(tool: &Value) -> bool {
    tool.get("defer_loading").and_then(Value::as_bool) == Some(true)
}

/// Reads an optional array member, rejecting other types.
pub fn optional_array<'a>(body: &'a Value, key: &str) -> Result<&'a [Value], String> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(format!("'{key}' must be an array")),
    }
}

/// Checks that every element of an array member is an object.
pub fn require_objects(items: &[Value], key: &str) -> Result<(), String> {
    match items.iter().position(|i| !i.is_object()) {
        Some(index) => Err(format!("'{key}[{index}]' must be an object")),
        None => Ok(()),
    }
}

/// The phrase with which Claude Code announces deferred tools, in a mid-conversation system
/// message: "The following deferred tools are now available via ToolSearch. … load tool
/// schemas before calling them:" followed by the names, one per line.
const DEFERRED_ANNOUNCEMENT: &str = "available via ToolSearch";

/// Tool names Claude Code announces as loadable through `ToolSearch`. Only MCP tools are
/// deferred, so the names are the `mcp__…` words after the announcement.
pub fn deferred_tool_names(text: &str) -> Vec<String> {
    let Some(at) = text.find(DEFERRED_ANNOUNCEMENT) else {
        return Vec::new();
    };
    text[at..]
        .split(|c: char| c.is_whitespace() || c == ',' || c == ':')
        .map(|word| word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')))
        .filter(|word| word.starts_with("mcp__"))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaced_tools_answer_to_the_joined_name() {
        let tool = OfferedTool {
            name: "get_weather".into(),
            namespace: Some("mcp__lab".into()),
            schema: None,
            deferred: false,
        };
        assert!(tool.answers_to("get_weather"));
        assert!(tool.answers_to("mcp__lab__get_weather"));
        assert!(!tool.answers_to("mcp__other__get_weather"));
    }

    #[test]
    fn deferred_tools_are_read_after_the_announcement() {
        // As claude 2.1.332 sends it: the names on the lines after the announcement.
        let text = "Notes mention mcp__not__this.\nThe following deferred tools are now available via ToolSearch. Their schemas are NOT loaded. Use ToolSearch with query \"select:<name>[,<name>...]\" to load tool schemas before calling them:\nmcp__sdklab__get_weather\nmcp__lab__x";
        assert_eq!(
            deferred_tool_names(text),
            vec!["mcp__sdklab__get_weather", "mcp__lab__x"]
        );
        assert!(deferred_tool_names("mcp__a__b without announcement").is_empty());
    }
}
