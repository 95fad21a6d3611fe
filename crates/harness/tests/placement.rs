//! Placement, multi_agent, Session-wide uniqueness, conflicts, and the order of the checks.

use crate::support;

use support::*;
use switchboard_execution::*;
use switchboard_harness::{Feature, PlacementKind, declaration};

#[test]
fn placement_table() {
    run(&[
        row("none", |s| s.placement = Placement::None, every(admit())),
        row(
            "openai_hosted",
            |s| s.placement = Placement::OpenaiHosted,
            every(admit()),
        ),
        row(
            "self_hosted",
            |s| s.placement = self_hosted(),
            every(admit()),
        ),
        row(
            "multi_agent",
            |s| s.multi_agent.enabled = true,
            every(admit()),
        ),
        row(
            "multi_agent with a maximum on a workspace",
            |s| {
                s.placement = Placement::OpenaiHosted;
                s.multi_agent = MultiAgent {
                    enabled: true,
                    max_concurrent_subagents: Some(2),
                };
            },
            every(admit()),
        ),
    ]);
}

#[test]
fn undeclared_placements_and_multi_agent() {
    let h = HarnessId::MinimaxCode;
    let mut decl = declaration(h).clone();
    decl.placements = &[PlacementKind::SelfHosted];
    assert_eq!(
        check_with(&decl, h, |s| s.placement = Placement::None),
        reject(
            "environment",
            "The harness does not support environment none."
        ),
    );
    assert_eq!(
        check_with(&decl, h, |s| s.placement = Placement::OpenaiHosted),
        reject(
            "environment",
            "The harness does not support this execution environment."
        ),
    );
    assert_eq!(
        check_with(&decl, h, |s| s.placement = self_hosted()),
        admit()
    );

    let mut decl = declaration(h).clone();
    decl.multi_agent = false;
    assert_eq!(
        check_with(&decl, h, |s| s.multi_agent.enabled = true),
        reject(
            "agent.multi_agent",
            "The harness does not support multi-agent execution."
        ),
    );
    assert_eq!(check_with(&decl, h, |_| {}), admit());
}

#[test]
fn distinct_table() {
    let controls = || reject("agent.tools", "Execution requires distinct tool controls.");
    run(&[
        row(
            "one of each control",
            |s| {
                s.tools = vec![
                    Tool::WebSearch(web_search(WebSearchMode::Disabled)),
                    ptc(false),
                    function("a"),
                    function("b"),
                ]
            },
            every(admit()),
        ),
        row(
            "two web_search controls",
            |s| {
                s.tools = vec![
                    Tool::WebSearch(web_search(WebSearchMode::Disabled)),
                    Tool::WebSearch(web_search(WebSearchMode::Disabled)),
                ]
            },
            every(controls()),
        ),
        row(
            "two automations",
            |s| s.tools = vec![Tool::Automations, Tool::Automations],
            every(controls()),
        ),
        row(
            "distinct controls come before every declaration check",
            |s| {
                s.placement = Placement::OpenaiHosted;
                s.tools = vec![ptc(true), ptc(true), Tool::Mcp(http_mcp("x"))];
            },
            every(controls()),
        ),
        row(
            "distinct labels come before every declaration check",
            |s| {
                s.tools = vec![
                    Tool::Mcp(http_mcp("codex_apps")),
                    Tool::Mcp(http_mcp("codex_apps")),
                ];
            },
            every(reject(
                "agent.tools",
                "Execution requires distinct MCP server labels.",
            )),
        ),
    ]);
}

#[test]
fn conflicts_name_both_features_and_the_first_param() {
    let h = HarnessId::ClaudeCode;
    let mut decl = declaration(h).clone();
    decl.conflicts = &[
        (Feature::JsonSchema, Feature::Mcp),
        (Feature::MultiAgent, Feature::ToolSearch),
    ];
    assert_eq!(
        check_with(&decl, h, |s| {
            s.text.format = TextFormat::JsonSchema {
                schema: serde_json::json!({"type": "object"}),
            };
            s.tools = vec![Tool::Mcp(http_mcp("tickets"))];
        }),
        reject(
            "agent.text.format",
            "The harness does not support json_schema with mcp."
        ),
    );
    assert_eq!(
        check_with(&decl, h, |s| {
            s.multi_agent.enabled = true;
            s.tools = vec![Tool::ToolSearch, deferred("lazy")];
        }),
        reject(
            "agent.multi_agent",
            "The harness does not support multi_agent with tool_search."
        ),
    );
    // One feature alone is fine.
    assert_eq!(
        check_with(&decl, h, |s| s.multi_agent.enabled = true),
        admit()
    );
}

#[test]
fn installed_capabilities_never_conflict_in_a_snapshot() {
    // Claude's (tool_search, installed_capabilities) pair needs the prepared Environment.
    run(&[row(
        "tool_search on a workspace",
        |s| {
            s.placement = Placement::OpenaiHosted;
            s.tools = vec![Tool::ToolSearch, deferred("lazy")];
        },
        [
            reject("agent.tools", "The harness does not support tool search."),
            admit(),
            reject("agent.tools", "The harness does not support tool search."),
        ],
    )]);
}

type Fix = fn(&mut SessionSnapshot);

#[test]
fn checks_run_in_documented_order() {
    // Every rule broken at once on a narrowed MiniMax Code: the earliest check reports, and
    // fixing it reveals the next, down to an admitted Session.
    let h = HarnessId::MinimaxCode;
    let mut decl = declaration(h).clone();
    decl.placements = &[PlacementKind::OpenaiHosted];
    decl.multi_agent = false;
    decl.functions.tools = false;

    let mut s = snapshot(h);
    s.multi_agent.enabled = true;
    s.tools = vec![
        deferred("lazy"),
        Tool::ToolSearch,
        Tool::Mcp(http_mcp("functions")),
        ptc(true),
    ];
    s.text = TextConfig {
        format: TextFormat::JsonSchema {
            schema: serde_json::json!({}),
        },
        verbosity: Verbosity::High,
    };
    s.model_provider.as_mut().unwrap().context_window = None;

    let steps: Vec<(Outcome, Fix)> = vec![
        (
            reject(
                "environment",
                "The harness does not support environment none.",
            ),
            |s| s.placement = Placement::OpenaiHosted,
        ),
        (
            reject(
                "agent.multi_agent",
                "The harness does not support multi-agent execution.",
            ),
            |s| s.multi_agent.enabled = false,
        ),
        (
            reject(
                "agent.tools",
                "The harness does not support function tools.",
            ),
            |s| s.tools.retain(|t| !matches!(t, Tool::Function(_))),
        ),
        (
            reject("agent.tools", "The harness does not support tool search."),
            |s| s.tools.retain(|t| !matches!(t, Tool::ToolSearch)),
        ),
        (
            reject(
                "agent.text.format",
                "The harness does not support json_schema output.",
            ),
            |s| s.text.format = TextFormat::Text,
        ),
        (
            reject(
                "agent.text.verbosity",
                "The harness supports medium text verbosity only.",
            ),
            |s| s.text.verbosity = Verbosity::Medium,
        ),
        (
            reject(
                "agent.tools",
                "Service-origin MCP requires environment none.",
            ),
            |s| s.tools[0] = Tool::Mcp(env_http_mcp("functions")),
        ),
        (
            reject(
                "agent.tools[1].enabled",
                "The harness does not support programmatic_tool_calling enabled=true.",
            ),
            |s| s.tools[1] = ptc(false),
        ),
        (
            reject(
                "x_agents_core.model_provider",
                "selected harness requires positive model context_window and max_output_tokens",
            ),
            |s| s.model_provider.as_mut().unwrap().context_window = Some(1),
        ),
    ];
    for (i, (expected, fix)) in steps.into_iter().enumerate() {
        let got = outcome(switchboard_harness::validate_selection(&decl, &s));
        assert_eq!(got, expected, "step {i}");
        fix(&mut s);
    }
    assert_eq!(
        outcome(switchboard_harness::validate_selection(&decl, &s)),
        admit()
    );
}
