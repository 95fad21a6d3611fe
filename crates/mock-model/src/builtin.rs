//! The built-in default: what the mock answers when no scenario (or no rule) says otherwise.
//!
//! It plays one tool round-trip per turn, like the lab probes the real harnesses were tested
//! with: call the first offered function once, with arguments generated from its schema, then
//! answer `FINAL: <last tool output>`. A request for a JSON-schema answer gets a minimal valid
//! instance of the schema. Claude Code's tool search is followed: if the only way to a tool is
//! `ToolSearch`, it is called with `select:<tool>`, and the tool it loads is called next.
//! Without tools it echoes the user's text, so a test can see what reached the model.

use serde_json::{Value, json};

use crate::answer::{Answer, Call};
use crate::request::{OfferedTool, RequestView};
use crate::scenario::ToolCall;
use crate::schema_instance::minimal_instance;

/// Tools the harnesses bring themselves. Calling them by default would run shell commands or
/// edit files, so the default only calls tools the caller added (dynamic, MCP, SDK tools).
pub const HARNESS_TOOLS: &[&str] = &[
    // Codex
    "exec_command",
    "write_stdin",
    "shell",
    "shell_command",
    "local_shell",
    "apply_patch",
    "update_plan",
    "request_user_input",
    "view_image",
    "web_search",
    "image_generation",
    "spawn_agent",
    "send_input",
    "wait",
    "wait_agent",
    "resume_agent",
    "close_agent",
    "get_goal",
    "create_goal",
    "update_goal",
    "list_mcp_resources",
    "list_mcp_resource_templates",
    "read_mcp_resource",
    // Claude Code
    "Agent",
    "Task",
    "Bash",
    "BashOutput",
    "KillShell",
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "Grep",
    "LS",
    "NotebookEdit",
    "NotebookRead",
    "TodoWrite",
    "TodoRead",
    "WebFetch",
    "WebSearch",
    "ExitPlanMode",
    "EnterPlanMode",
    "AskUserQuestion",
    "Skill",
    "SlashCommand",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "ToolSearch",
    "StructuredOutput",
    // Claude Code 2.1.332's native set adds these (`--tools=default`, on a workspace).
    "CronCreate",
    "CronDelete",
    "CronList",
    "ScheduleWakeup",
    "Workflow",
    "Monitor",
    "TaskStop",
    "SendMessage",
    "ListAgents",
    "EnterWorktree",
    "ExitWorktree",
    "ReportFindings",
    "DeferredToolPlaceholder",
];

/// Namespaces of Codex's own tools (its sub-agent tools live in `multi_agent_v1`).
pub const HARNESS_NAMESPACE_PREFIXES: &[&str] = &["multi_agent"];

/// Claude Code's tool-loading tool (ENABLE_TOOL_SEARCH).
pub const TOOL_SEARCH: &str = "ToolSearch";

/// The default answer to `view`.
pub fn answer(view: &RequestView) -> Answer {
    if let Some(output) = view.turn_outputs.last() {
        // A ToolSearch result loaded tools: call the first one it loaded.
        if let Some(loaded) = output.references.first() {
            return Answer::call(Call::resolve(&ToolCall::generated(loaded.as_str()), view));
        }
        if let Some(schema) = &view.answer_schema {
            return structured(view, minimal_instance(&schema.schema));
        }
        return Answer::text(format!("FINAL: {}", output.text));
    }
    if let Some(schema) = &view.answer_schema {
        // Claude Code's --json-schema turn: the tool is the answer, nothing else is called.
        if schema.via_tool.is_some() || first_function(view).is_none() {
            return structured(view, minimal_instance(&schema.schema));
        }
    }
    if let Some(tool) = first_function(view) {
        return Answer::call(Call::resolve(
            &ToolCall::generated(tool.name.as_str()),
            view,
        ));
    }
    if let Some(deferred) = view.deferred_tools.first()
        && view.find_tool(TOOL_SEARCH).is_some()
    {
        return Answer::call(Call {
            name: TOOL_SEARCH.into(),
            namespace: None,
            id: None,
            arguments: json!({"query": format!("select:{deferred}"), "max_results": 5}),
        });
    }
    Answer::text(format!(
        "ECHO: {}",
        view.last_user_text.as_deref().unwrap_or_default()
    ))
}

/// A structured answer: the answer tool's call when the harness asks for one, else JSON text.
pub fn structured(view: &RequestView, value: Value) -> Answer {
    match view.answer_schema.as_ref().and_then(|s| s.via_tool.clone()) {
        Some(tool) => Answer::call(Call {
            name: tool,
            namespace: None,
            id: None,
            arguments: value,
        }),
        None => Answer::text(value.to_string()),
    }
}

/// The first offered function the harness did not bring itself and that is loaded (a
/// deferred tool is reached through `ToolSearch` instead).
fn first_function(view: &RequestView) -> Option<&OfferedTool> {
    view.tools
        .iter()
        .find(|t| t.is_function() && !t.deferred && !is_harness_tool(t))
}

fn is_harness_tool(tool: &OfferedTool) -> bool {
    let in_harness_namespace = tool.namespace.as_deref().is_some_and(|ns| {
        HARNESS_NAMESPACE_PREFIXES
            .iter()
            .any(|prefix| ns.starts_with(prefix))
    });
    in_harness_namespace || HARNESS_TOOLS.contains(&tool.name.as_str())
}
