//! A scenario in which the model calls one tool of a declared MCP server, then answers.
//!
//! Both harnesses name an MCP tool `mcp__<label>__<tool>` to the model (Codex as the tool
//! `<tool>` in the namespace `mcp__<label>`, which the matcher also accepts under the joined
//! name), so one scenario drives Codex and Claude Code alike.

use serde_json::Value;

use crate::request::ItemKind;
use crate::scenario::{Reply, Rule, Scenario, ToolCall, When};

/// When `mcp__<label>__<tool>` is offered and no tool output has arrived yet, call it with
/// `arguments`; once its output is back, answer `final_text`. Anything else gets the built-in
/// default.
pub fn mcp_tool_turn(label: &str, tool: &str, arguments: Value, final_text: &str) -> Scenario {
    let native = format!("mcp__{label}__{tool}");
    Scenario::new(vec![
        Rule::new(
            When {
                tool_offered: Some(native.clone()),
                tool_output_present: Some(false),
                ..When::default()
            },
            Reply::tool_calls(vec![ToolCall::new(native, arguments)]),
        )
        .named("call the MCP tool"),
        Rule::new(
            When {
                last_kind: Some(ItemKind::ToolOutput),
                ..When::default()
            },
            Reply::text(final_text),
        )
        .named("answer from the MCP result"),
    ])
}
