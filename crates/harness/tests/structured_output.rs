//! Structured output and text verbosity: Codex runs any schema as the native `outputSchema`;
//! Claude Code needs an explicit object root and numbers that survive binary64; MiniMax Code
//! has no structured output. Only Codex admits a verbosity other than medium.

use crate::support;

use support::*;
use switchboard_execution::{HarnessId, SessionSnapshot, TextFormat, Tool, Verbosity};
use switchboard_harness::declaration;

const NO_JSON_SCHEMA: &str = "The harness does not support json_schema output.";
const BINARY64: &str = "This runtime requires an object schema with lossless JSON numbers.";
const MEDIUM_ONLY: &str = "The harness supports medium text verbosity only.";

fn schema(s: &mut SessionSnapshot, text: &str) {
    s.text.format = TextFormat::JsonSchema {
        schema: json_text(text),
    };
}

#[test]
fn json_schema_table() {
    let unsupported = || reject("agent.text.format", NO_JSON_SCHEMA);
    let lossy = || reject("agent.text.format", BINARY64);
    run(&[
        row(
            "text format",
            |s| s.text.format = TextFormat::Text,
            every(admit()),
        ),
        row(
            "object schema",
            |s| {
                schema(
                    s,
                    r#"{"type":"object","properties":{"answer":{"type":"string"}}}"#,
                )
            },
            [admit(), admit(), unsupported()],
        ),
        row(
            "numbers that survive binary64",
            |s| {
                schema(
                    s,
                    r#"{"type":"object","properties":{"p":{"type":"number","minimum":0.1,
                        "maximum":1.0,"multipleOf":0.30000000000000004,"default":-0.0}}}"#,
                )
            },
            [admit(), admit(), unsupported()],
        ),
        row(
            "no root type",
            |s| schema(s, r#"{"properties":{"answer":{"type":"string"}}}"#),
            [admit(), lossy(), unsupported()],
        ),
        row(
            "a root type list",
            |s| schema(s, r#"{"type":["object"]}"#),
            [admit(), lossy(), unsupported()],
        ),
        row(
            "an integer beyond 2^53",
            |s| {
                schema(
                    s,
                    r#"{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}"#,
                )
            },
            [admit(), lossy(), unsupported()],
        ),
        row(
            "an overflowing number deep in an enum",
            |s| {
                schema(
                    s,
                    r#"{"type":"object","properties":{"n":{"enum":[1,[2,{"x":1e400}]]}}}"#,
                )
            },
            [admit(), lossy(), unsupported()],
        ),
        row(
            "a subnormal that rounds",
            |s| schema(s, r#"{"type":"object","examples":[2.5e-324]}"#),
            [admit(), lossy(), unsupported()],
        ),
        row(
            "json_schema with MCP, multi_agent and tool_search on Claude (no conflict)",
            |s| {
                schema(s, r#"{"type":"object"}"#);
                s.multi_agent.enabled = true;
                s.tools = vec![Tool::Mcp(http_mcp("tickets"))];
            },
            [admit(), admit(), unsupported()],
        ),
    ]);
}

#[test]
fn verbosity_table() {
    let medium_only = || reject("agent.text.verbosity", MEDIUM_ONLY);
    run(&[
        row(
            "medium",
            |s| s.text.verbosity = Verbosity::Medium,
            every(admit()),
        ),
        row(
            "low",
            |s| s.text.verbosity = Verbosity::Low,
            [admit(), medium_only(), medium_only()],
        ),
        row(
            "high",
            |s| s.text.verbosity = Verbosity::High,
            [admit(), medium_only(), medium_only()],
        ),
    ]);
}

#[test]
fn order_json_schema_then_verbosity_then_binary64() {
    run(&[
        row(
            "unsupported json_schema before verbosity",
            |s| {
                schema(s, r#"{"type":"object"}"#);
                s.text.verbosity = Verbosity::High;
            },
            [
                admit(),
                reject("agent.text.verbosity", MEDIUM_ONLY),
                reject("agent.text.format", NO_JSON_SCHEMA),
            ],
        ),
        row(
            "verbosity before the binary64 schema",
            |s| {
                schema(s, r#"{"type":"object","maximum":1e400}"#);
                s.text.verbosity = Verbosity::Low;
            },
            [
                admit(),
                reject("agent.text.verbosity", MEDIUM_ONLY),
                reject("agent.text.format", NO_JSON_SCHEMA),
            ],
        ),
        row(
            "the binary64 schema before MCP",
            |s| {
                schema(s, r#"{"type":"object","maximum":1e400}"#);
                s.tools = vec![Tool::Mcp(stdio_mcp("local", "/tmp"))];
            },
            [
                reject(
                    "agent.tools[0].transport",
                    "MCP stdio servers require a managed or self-hosted execution environment.",
                ),
                reject("agent.text.format", BINARY64),
                reject("agent.text.format", NO_JSON_SCHEMA),
            ],
        ),
    ]);
}

#[test]
fn a_narrower_verbosity_list_names_the_value() {
    let mut decl = declaration(HarnessId::Codex).clone();
    decl.execution.text_verbosities = &[Verbosity::Low, Verbosity::Medium];
    assert_eq!(
        check_with(&decl, HarnessId::Codex, |s| s.text.verbosity =
            Verbosity::High),
        reject(
            "agent.text.verbosity",
            "The harness does not support text verbosity 'high'."
        ),
    );
    assert_eq!(
        check_with(&decl, HarnessId::Codex, |s| s.text.verbosity =
            Verbosity::Low),
        admit()
    );
}

#[test]
fn saved_spelling_is_kept_and_checked_as_a_value() {
    // `1.50` and `100` are different spellings of binary64-exact values.
    let decl = declaration(HarnessId::ClaudeCode);
    let mut s = snapshot(HarnessId::ClaudeCode);
    schema(&mut s, r#"{"type":"object","maximum":1.50,"minimum":1E2}"#);
    assert_eq!(
        outcome(switchboard_harness::validate_selection(decl, &s)),
        admit()
    );
}
