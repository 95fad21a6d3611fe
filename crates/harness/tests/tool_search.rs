//! Deferred function discovery: `tool_search` and `defer_loading` functions come together,
//! and only Claude Code declares discovery.

use crate::support;

use support::*;
use switchboard_execution::Tool;

const NO_SEARCH: &str = "The harness does not support tool search.";
const PAIR: &str =
    "Tool search requires deferred functions, and deferred functions require tool search.";

#[test]
fn tool_search_table() {
    let unsupported = || reject("agent.tools", NO_SEARCH);
    run(&[
        row(
            "tool_search with a deferred function",
            |s| s.tools = vec![Tool::ToolSearch, deferred("lookup")],
            [unsupported(), admit(), unsupported()],
        ),
        row(
            "tool_search with deferred and eager functions",
            |s| s.tools = vec![function("eager"), Tool::ToolSearch, deferred("lazy")],
            [unsupported(), admit(), unsupported()],
        ),
        row(
            "tool_search without any function",
            |s| s.tools = vec![Tool::ToolSearch],
            [unsupported(), reject("agent.tools", PAIR), unsupported()],
        ),
        row(
            "tool_search with only eager functions",
            |s| s.tools = vec![Tool::ToolSearch, function("eager")],
            [unsupported(), reject("agent.tools", PAIR), unsupported()],
        ),
        row(
            "a deferred function without tool_search",
            |s| s.tools = vec![deferred("lazy")],
            [unsupported(), reject("agent.tools", PAIR), unsupported()],
        ),
        row(
            "tool_search with MCP and json_schema (no conflict in the spec)",
            |s| {
                s.placement = self_hosted();
                s.tools = vec![
                    Tool::ToolSearch,
                    deferred("lazy"),
                    Tool::Mcp(env_http_mcp("tickets")),
                ];
                s.text.format = switchboard_execution::TextFormat::JsonSchema {
                    schema: serde_json::json!({"type": "object"}),
                };
            },
            [unsupported(), admit(), unsupported()],
        ),
        row(
            "two tool_search controls",
            |s| s.tools = vec![Tool::ToolSearch, deferred("lazy"), Tool::ToolSearch],
            every(reject(
                "agent.tools",
                "Execution requires distinct tool controls.",
            )),
        ),
    ]);
}
