//! What a Runtime must advertise to run a snapshot (core-contracts §6.4 "Core requires").

use crate::support;

use serde_json::json;
use support::*;
use switchboard_execution::*;
use switchboard_harness::Capability::{self, *};
use switchboard_harness::required_capabilities;

const ALWAYS: [Capability; 7] = [
    Streaming,
    Steering,
    DurableTurns,
    DurableInputReceipts,
    Preparation,
    ExecutionControls,
    ToolObservations,
];

fn expect(extra: &[Capability]) -> Vec<Capability> {
    let mut all: Vec<Capability> = ALWAYS.iter().chain(extra).copied().collect();
    all.sort();
    all
}

/// A case name, a change to the baseline, and the capabilities the result needs.
type Case = (&'static str, fn(&mut SessionSnapshot), Vec<Capability>);

fn required(build: fn(&mut SessionSnapshot)) -> Vec<Capability> {
    let mut s = snapshot(HarnessId::Codex);
    build(&mut s);
    required_capabilities(&s)
}

#[test]
fn requirement_table() {
    let rows: [Case; 11] = [
        (
            "baseline on none",
            |_| {},
            expect(&[EnvironmentNone, SubagentControl]),
        ),
        (
            "a managed workspace also needs a Runtime that can isolate it",
            |s| s.placement = Placement::OpenaiHosted,
            expect(&[
                LocalEnvironment,
                WorkspaceReadPreparation,
                WorkspaceOutputExport,
                SubagentControl,
                ManagedWorkspace,
            ]),
        ),
        (
            "a self-hosted workspace",
            |s| {
                s.placement = Placement::SelfHosted {
                    workspace_directory: "/work".into(),
                }
            },
            expect(&[
                LocalEnvironment,
                WorkspaceReadPreparation,
                WorkspaceOutputExport,
                SubagentControl,
            ]),
        ),
        (
            "multi_agent",
            |s| s.multi_agent.enabled = true,
            expect(&[EnvironmentNone, SubagentObservations]),
        ),
        (
            "functions",
            |s| s.tools = vec![function("f")],
            expect(&[EnvironmentNone, SubagentControl, FunctionTools]),
        ),
        (
            "tool search",
            |s| s.tools = vec![Tool::ToolSearch, deferred("f")],
            expect(&[
                EnvironmentNone,
                SubagentControl,
                FunctionTools,
                Capability::ToolSearch,
            ]),
        ),
        (
            "json_schema",
            |s| {
                s.text.format = TextFormat::JsonSchema {
                    schema: json!({"type": "object"}),
                }
            },
            expect(&[
                EnvironmentNone,
                SubagentControl,
                StructuredOutput,
                MessageItems,
            ]),
        ),
        (
            "an anonymous optional MCP server",
            |s| s.tools = vec![Tool::Mcp(http_mcp("a"))],
            expect(&[EnvironmentNone, SubagentControl, McpHttpTools]),
        ),
        (
            "required and authenticated MCP servers",
            |s| {
                s.tools = vec![
                    Tool::Mcp(McpTool {
                        required: true,
                        ..http_mcp("a")
                    }),
                    Tool::Mcp(McpTool {
                        credential_id: Some("c".into()),
                        ..http_mcp("b")
                    }),
                ]
            },
            expect(&[
                EnvironmentNone,
                SubagentControl,
                McpHttpTools,
                McpHttpRequired,
                McpHttpBearerAuth,
            ]),
        ),
        (
            "a stdio server needs mcp_http_tools too",
            |s| {
                s.placement = self_hosted();
                s.tools = vec![Tool::Mcp(stdio_mcp("local", WORKSPACE))];
            },
            expect(&[
                LocalEnvironment,
                WorkspaceReadPreparation,
                WorkspaceOutputExport,
                SubagentControl,
                McpHttpTools,
            ]),
        ),
        (
            "web_search, PTC, verbosity and reasoning need only execution_controls",
            |s| {
                s.tools = vec![Tool::WebSearch(web_search(WebSearchMode::Live)), ptc(true)];
                s.text.verbosity = Verbosity::High;
                s.reasoning.effort = Some(ReasoningEffort::High);
            },
            expect(&[EnvironmentNone, SubagentControl]),
        ),
    ];
    for (case, build, want) in rows {
        assert_eq!(required(build), want, "{case}");
    }
}

#[test]
fn capability_names_are_the_wire_names() {
    assert_eq!(McpHttpBearerAuth.as_str(), "mcp_http_bearer_auth");
    assert_eq!(
        ProgrammaticToolCallingDisable.as_str(),
        "programmatic_tool_calling_disable"
    );
    assert_eq!(
        Capability::parse("durable_input_receipts"),
        Some(DurableInputReceipts)
    );
    assert_eq!(ManagedWorkspace.as_str(), "managed_workspace");
    assert_eq!(
        WorkspaceStructuredOutput.as_str(),
        "workspace_structured_output"
    );
    assert_eq!(Capability::ALL.len(), 32);
}

/// Structured output on a workspace placement: Claude also needs `workspace_structured_output`
/// (its declaration says so), Codex does not; on `none` neither does.
#[test]
fn claude_structured_output_on_a_workspace_needs_workspace_structured_output() {
    let json_schema = |s: &mut SessionSnapshot| {
        s.text.format = TextFormat::JsonSchema {
            schema: json!({"type": "object"}),
        }
    };
    for (harness, placement, needed) in [
        (HarnessId::ClaudeCode, self_hosted(), true),
        (HarnessId::ClaudeCode, Placement::OpenaiHosted, true),
        (HarnessId::ClaudeCode, Placement::None, false),
        (HarnessId::Codex, self_hosted(), false),
        (HarnessId::Codex, Placement::OpenaiHosted, false),
    ] {
        let mut s = snapshot(harness);
        s.placement = placement.clone();
        json_schema(&mut s);
        let required = required_capabilities(&s);
        assert!(
            required.contains(&StructuredOutput),
            "{harness:?} {placement:?}"
        );
        assert_eq!(
            required.contains(&WorkspaceStructuredOutput),
            needed,
            "{harness:?} {placement:?}"
        );
        // Without structured output, never.
        s.text.format = TextFormat::Text;
        assert!(!required_capabilities(&s).contains(&WorkspaceStructuredOutput));
    }
}
