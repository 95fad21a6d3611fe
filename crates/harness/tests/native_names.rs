//! Names the native harness refuses or merges: Codex dynamic tool names, and Claude Code's
//! normalized `mcp__<server>__<tool>` names, which must stay distinct.

use crate::support;

use serde_json::json;
use support::*;
use switchboard_execution::Tool;

const CODEX_NAME: &str = "The harness requires function names of 1 to 128 ASCII letters, digits, underscores or hyphens.";

fn collision(native: &str) -> String {
    format!("The harness names this tool {native}, as it names another tool of the Session.")
}

#[test]
fn function_name_table() {
    run(&[
        row(
            "letters, digits, underscore and hyphen",
            |s| s.tools = vec![function("get_weather-2")],
            every(admit()),
        ),
        row(
            "128 bytes",
            |s| s.tools = vec![function(&"a".repeat(128))],
            every(admit()),
        ),
        row(
            "129 bytes",
            |s| s.tools = vec![function(&"a".repeat(129))],
            [reject("agent.tools[0].name", CODEX_NAME), admit(), admit()],
        ),
        row(
            "a dot",
            |s| s.tools = vec![function("get.weather")],
            [reject("agent.tools[0].name", CODEX_NAME), admit(), admit()],
        ),
        row(
            "a NUL",
            |s| s.tools = vec![function("get\0weather")],
            [reject("agent.tools[0].name", CODEX_NAME), admit(), admit()],
        ),
        row(
            "the param names the function's own index",
            |s| s.tools = vec![ptc(false), function("ok"), function("not ok")],
            [reject("agent.tools[2].name", CODEX_NAME), admit(), admit()],
        ),
        row(
            "the name is checked before the parameters root",
            |s| s.tools = vec![function_with("a b", json!({}))],
            [
                reject("agent.tools[0].name", CODEX_NAME),
                reject(
                    "agent.tools[0].parameters",
                    "The harness requires function parameters with a type \"object\" root.",
                ),
                reject(
                    "agent.tools[0].parameters",
                    "The harness requires function parameters with a type \"object\" root.",
                ),
            ],
        ),
    ]);
}

#[test]
fn normalized_collision_table() {
    run(&[
        row(
            "two names that normalize to one",
            |s| s.tools = vec![function("get.weather"), function("get_weather")],
            [
                reject("agent.tools[0].name", CODEX_NAME),
                reject(
                    "agent.tools[1].name",
                    &collision("mcp__functions__get_weather"),
                ),
                admit(),
            ],
        ),
        row(
            "a NUL and an underscore",
            |s| s.tools = vec![function("get_weather"), function("get\0weather")],
            [
                reject("agent.tools[1].name", CODEX_NAME),
                reject(
                    "agent.tools[1].name",
                    &collision("mcp__functions__get_weather"),
                ),
                admit(),
            ],
        ),
        row(
            "a character outside the BMP is two UTF-16 units",
            |s| s.tools = vec![function("a😀"), function("a__")],
            [
                reject("agent.tools[0].name", CODEX_NAME),
                reject("agent.tools[1].name", &collision("mcp__functions__a__")),
                admit(),
            ],
        ),
        row(
            "one unit and two units stay apart",
            |s| s.tools = vec![function("a😀"), function("a_")],
            [reject("agent.tools[0].name", CODEX_NAME), admit(), admit()],
        ),
        row(
            "allowed MCP tools that normalize to one",
            |s| {
                let mut server = http_mcp("lab");
                server.allowed_tools = Some(vec!["get.x".into(), "get_x".into()]);
                s.tools = vec![Tool::Mcp(server)];
            },
            [
                admit(),
                reject(
                    "agent.tools[0].allowed_tools[1]",
                    &collision("mcp__lab__get_x"),
                ),
                // MiniMax serves environment-origin servers only.
                reject(
                    "agent.tools",
                    "The harness does not support this MCP connection origin.",
                ),
            ],
        ),
        row(
            "a server label that ends where a function name begins",
            |s| {
                let mut server = http_mcp("functions__a");
                server.allowed_tools = Some(vec!["b".into()]);
                s.tools = vec![function("a__b"), Tool::Mcp(server)];
            },
            [
                admit(),
                reject(
                    "agent.tools[1].allowed_tools[0]",
                    &collision("mcp__functions__a__b"),
                ),
                reject(
                    "agent.tools",
                    "The harness does not support this MCP connection origin.",
                ),
            ],
        ),
    ]);
}
