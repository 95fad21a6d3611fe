//! Functions: every harness runs function tools (MiniMax Code through its MCP server
//! `functions`); harnesses that serve them as MCP tools need an explicit object root.

use crate::support;

use serde_json::json;
use support::*;
use switchboard_execution::{HarnessId, Tool, WebSearchMode};
use switchboard_harness::declaration;

const LOSSLESS: &str = "This runtime requires an object schema with lossless JSON numbers.";
const OBJECT_ROOT: &str = "The harness requires function parameters with a type \"object\" root.";

#[test]
fn function_table() {
    run(&[
        row(
            "one function",
            |s| s.tools = vec![function("lookup")],
            every(admit()),
        ),
        row(
            "several functions beside controls",
            |s| {
                s.tools = vec![
                    function("a"),
                    Tool::WebSearch(web_search(WebSearchMode::Disabled)),
                    function("b"),
                ]
            },
            every(admit()),
        ),
        row(
            "parameters without a type",
            |s| s.tools = vec![function_with("lookup", json!({"properties": {}}))],
            [
                admit(),
                reject("agent.tools[0].parameters", OBJECT_ROOT),
                reject("agent.tools[0].parameters", OBJECT_ROOT),
            ],
        ),
        row(
            "parameters typed by a list",
            |s| s.tools = vec![function_with("lookup", json!({"type": ["object", "null"]}))],
            [
                admit(),
                reject("agent.tools[0].parameters", OBJECT_ROOT),
                reject("agent.tools[0].parameters", OBJECT_ROOT),
            ],
        ),
        row(
            "parameters that are true",
            |s| s.tools = vec![function_with("lookup", json!(true))],
            [
                admit(),
                reject("agent.tools[0].parameters", OBJECT_ROOT),
                reject("agent.tools[0].parameters", OBJECT_ROOT),
            ],
        ),
        row(
            "the param names the function's own index",
            |s| s.tools = vec![ptc(false), function("ok"), function_with("bad", json!({}))],
            [
                admit(),
                reject("agent.tools[2].parameters", OBJECT_ROOT),
                reject("agent.tools[2].parameters", OBJECT_ROOT),
            ],
        ),
        row(
            "an integer that needs 128 bits (Codex's reader refuses it)",
            |s| {
                s.tools = vec![function_with(
                    "lookup",
                    json_text(
                        r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 123456789012345678901234567890}}}"#,
                    ),
                )]
            },
            [
                reject("agent.tools[0].parameters", LOSSLESS),
                admit(),
                admit(),
            ],
        ),
        row(
            "64-bit integers and floats everywhere",
            |s| {
                s.tools = vec![function_with(
                    "lookup",
                    json_text(
                        r#"{"type": "object", "properties": {"n": {"maximum": 18446744073709551615, "minimum": -9223372036854775808, "multipleOf": 1e400}}}"#,
                    ),
                )]
            },
            every(admit()),
        ),
        row(
            "functions with multi_agent (Subagent calls are root required actions)",
            |s| {
                s.tools = vec![function("lookup")];
                s.multi_agent.enabled = true;
            },
            every(admit()),
        ),
    ]);
}

#[test]
fn a_harness_without_functions_rejects_them_first() {
    let mut decl = declaration(HarnessId::ClaudeCode).clone();
    decl.functions.tools = false;
    // The support check comes before the object-root check.
    assert_eq!(
        check_with(&decl, HarnessId::ClaudeCode, |s| {
            s.tools = vec![function_with("lookup", json!({}))]
        }),
        reject(
            "agent.tools",
            "The harness does not support function tools."
        ),
    );
    assert_eq!(check_with(&decl, HarnessId::ClaudeCode, |_| {}), admit());
}
