//! The Execution part: web_search modes and search settings, programmatic_tool_calling
//! values, reasoning efforts and summaries, service tiers, and tool types no harness runs.
//!
//! Spec table: Codex runs disabled, cached and live with every setting, and both PTC values;
//! Claude Code runs disabled and live with context_size medium and no domains or location, and
//! PTC false; MiniMax Code runs disabled only and PTC false.

use crate::support;

use support::*;
use switchboard_execution::*;

const MEDIUM_CONTEXT: &str = "The harness supports web_search context_size 'medium' only.";
const DOMAINS: &str = "The harness does not support web_search allowed_domains.";
const LOCATION: &str = "The harness does not support web_search location.";
const PTC_TRUE: &str = "The harness does not support programmatic_tool_calling enabled=true.";

fn search(s: &mut SessionSnapshot, tool: WebSearchTool) {
    s.tools = vec![Tool::WebSearch(tool)];
}

#[test]
fn web_search_mode_table() {
    let mode = |m: &str| {
        reject(
            "agent.tools[0].mode",
            &format!("The harness does not support web_search mode '{m}'."),
        )
    };
    run(&[
        row(
            "disabled",
            |s| search(s, web_search(WebSearchMode::Disabled)),
            every(admit()),
        ),
        row(
            "cached",
            |s| search(s, web_search(WebSearchMode::Cached)),
            [admit(), mode("cached"), mode("cached")],
        ),
        row(
            "live",
            |s| search(s, web_search(WebSearchMode::Live)),
            [admit(), admit(), mode("live")],
        ),
        row(
            "live on a workspace",
            |s| {
                s.placement = Placement::OpenaiHosted;
                search(s, web_search(WebSearchMode::Live));
            },
            [admit(), admit(), mode("live")],
        ),
        row(
            "the param names the control's index",
            |s| {
                s.tools = vec![
                    function("f"),
                    ptc(false),
                    Tool::WebSearch(web_search(WebSearchMode::Cached)),
                ]
            },
            [
                admit(),
                reject(
                    "agent.tools[2].mode",
                    "The harness does not support web_search mode 'cached'.",
                ),
                reject(
                    "agent.tools[2].mode",
                    "The harness does not support web_search mode 'cached'.",
                ),
            ],
        ),
    ]);
}

#[test]
fn web_search_settings_table() {
    // Mode disabled runs everywhere, so each row isolates one setting.
    run(&[
        row(
            "context_size low",
            |s| {
                search(
                    s,
                    WebSearchTool {
                        context_size: ContextSize::Low,
                        ..web_search(WebSearchMode::Disabled)
                    },
                )
            },
            [
                admit(),
                reject("agent.tools[0].context_size", MEDIUM_CONTEXT),
                reject("agent.tools[0].context_size", MEDIUM_CONTEXT),
            ],
        ),
        row(
            "context_size high",
            |s| {
                search(
                    s,
                    WebSearchTool {
                        context_size: ContextSize::High,
                        ..web_search(WebSearchMode::Disabled)
                    },
                )
            },
            [
                admit(),
                reject("agent.tools[0].context_size", MEDIUM_CONTEXT),
                reject("agent.tools[0].context_size", MEDIUM_CONTEXT),
            ],
        ),
        row(
            "allowed_domains",
            |s| {
                search(
                    s,
                    WebSearchTool {
                        allowed_domains: Some(vec!["example.com".into()]),
                        ..web_search(WebSearchMode::Disabled)
                    },
                )
            },
            [
                admit(),
                reject("agent.tools[0].allowed_domains", DOMAINS),
                reject("agent.tools[0].allowed_domains", DOMAINS),
            ],
        ),
        row(
            "an empty allowed_domains list is still a restriction",
            |s| {
                search(
                    s,
                    WebSearchTool {
                        allowed_domains: Some(vec![]),
                        ..web_search(WebSearchMode::Disabled)
                    },
                )
            },
            [
                admit(),
                reject("agent.tools[0].allowed_domains", DOMAINS),
                reject("agent.tools[0].allowed_domains", DOMAINS),
            ],
        ),
        row(
            "location {}",
            |s| {
                search(
                    s,
                    WebSearchTool {
                        location: Some(WebSearchLocation::default()),
                        ..web_search(WebSearchMode::Disabled)
                    },
                )
            },
            [
                admit(),
                reject("agent.tools[0].location", LOCATION),
                reject("agent.tools[0].location", LOCATION),
            ],
        ),
        row(
            "every setting on live",
            |s| {
                search(
                    s,
                    WebSearchTool {
                        mode: WebSearchMode::Live,
                        context_size: ContextSize::High,
                        allowed_domains: Some(vec!["example.com".into()]),
                        location: Some(WebSearchLocation {
                            country: Some("FR".into()),
                            ..WebSearchLocation::default()
                        }),
                    },
                )
            },
            [
                admit(),
                reject("agent.tools[0].context_size", MEDIUM_CONTEXT),
                reject(
                    "agent.tools[0].mode",
                    "The harness does not support web_search mode 'live'.",
                ),
            ],
        ),
    ]);
}

#[test]
fn programmatic_tool_calling_table() {
    run(&[
        row(
            "enabled false",
            |s| s.tools = vec![ptc(false)],
            every(admit()),
        ),
        row(
            "enabled true (the saved default)",
            |s| s.tools = vec![ptc(true)],
            [
                admit(),
                reject("agent.tools[0].enabled", PTC_TRUE),
                reject("agent.tools[0].enabled", PTC_TRUE),
            ],
        ),
        row(
            "both controls together",
            |s| {
                s.tools = vec![
                    Tool::WebSearch(web_search(WebSearchMode::Disabled)),
                    ptc(true),
                ]
            },
            [
                admit(),
                reject("agent.tools[1].enabled", PTC_TRUE),
                reject("agent.tools[1].enabled", PTC_TRUE),
            ],
        ),
        row(
            "two programmatic_tool_calling controls",
            |s| s.tools = vec![ptc(false), ptc(false)],
            every(reject(
                "agent.tools",
                "Execution requires distinct tool controls.",
            )),
        ),
    ]);
}

#[test]
fn reasoning_effort_table() {
    fn effort(s: &mut SessionSnapshot, e: ReasoningEffort) {
        s.reasoning.effort = Some(e);
    }
    let no = |e: &str| {
        reject(
            "agent.reasoning.effort",
            &format!("The harness does not support reasoning effort '{e}'."),
        )
    };
    run(&[
        row("unset", |s| s.reasoning.effort = None, every(admit())),
        row(
            "none",
            |s| effort(s, ReasoningEffort::None),
            [admit(), no("none"), no("none")],
        ),
        row(
            "minimal",
            |s| effort(s, ReasoningEffort::Minimal),
            [admit(), no("minimal"), no("minimal")],
        ),
        row(
            "low",
            |s| effort(s, ReasoningEffort::Low),
            [admit(), admit(), no("low")],
        ),
        row(
            "medium",
            |s| effort(s, ReasoningEffort::Medium),
            [admit(), admit(), no("medium")],
        ),
        row(
            "high",
            |s| effort(s, ReasoningEffort::High),
            [admit(), admit(), no("high")],
        ),
        row(
            "xhigh",
            |s| effort(s, ReasoningEffort::Xhigh),
            [admit(), admit(), no("xhigh")],
        ),
        row(
            "max",
            |s| effort(s, ReasoningEffort::Max),
            [no("max"), admit(), no("max")],
        ),
    ]);
}

#[test]
fn reasoning_summary_table() {
    let no = |v: &str| {
        reject(
            "agent.reasoning.summary",
            &format!("The harness does not support reasoning summary '{v}'."),
        )
    };
    run(&[
        row("unset", |s| s.reasoning.summary = None, every(admit())),
        row(
            "auto",
            |s| s.reasoning.summary = Some(ReasoningSummary::Auto),
            [admit(), no("auto"), no("auto")],
        ),
        row(
            "concise",
            |s| s.reasoning.summary = Some(ReasoningSummary::Concise),
            [admit(), no("concise"), no("concise")],
        ),
        row(
            "detailed",
            |s| s.reasoning.summary = Some(ReasoningSummary::Detailed),
            [admit(), no("detailed"), no("detailed")],
        ),
        row(
            "effort is checked before summary",
            |s| {
                s.reasoning.effort = Some(ReasoningEffort::High);
                s.reasoning.summary = Some(ReasoningSummary::Auto);
            },
            [
                admit(),
                no("auto"),
                reject(
                    "agent.reasoning.effort",
                    "The harness does not support reasoning effort 'high'.",
                ),
            ],
        ),
    ]);
}

#[test]
fn service_tier_table() {
    let no = |t: &str| {
        reject(
            "agent.service_tier",
            &format!("The harness does not support service_tier '{t}'."),
        )
    };
    run(&[
        row(
            "auto",
            |s| s.service_tier = ServiceTier::Auto,
            every(admit()),
        ),
        row(
            "default",
            |s| s.service_tier = ServiceTier::Default,
            every(no("default")),
        ),
        row(
            "flex",
            |s| s.service_tier = ServiceTier::Flex,
            every(no("flex")),
        ),
        row(
            "priority",
            |s| s.service_tier = ServiceTier::Priority,
            every(no("priority")),
        ),
        row(
            "fast",
            |s| s.service_tier = ServiceTier::Fast,
            every(no("fast")),
        ),
        row(
            "ultrafast",
            |s| s.service_tier = ServiceTier::Ultrafast,
            every(no("ultrafast")),
        ),
    ]);
}

#[test]
fn tool_types_no_harness_runs() {
    run(&[
        row(
            "computer_use",
            |s| {
                s.tools = vec![Tool::ComputerUse(ComputerUseTool {
                    include_screenshots: false,
                })]
            },
            every(reject(
                "agent.tools[0]",
                "The harness does not support computer_use tools.",
            )),
        ),
        row(
            "automations",
            |s| s.tools = vec![function("f"), Tool::Automations],
            every(reject(
                "agent.tools[1]",
                "The harness does not support automations tools.",
            )),
        ),
    ]);
}

#[test]
fn execution_order_tools_then_reasoning_then_tier() {
    run(&[row(
        "every Execution value out of range",
        |s| {
            s.tools = vec![
                ptc(true),
                Tool::WebSearch(web_search(WebSearchMode::Cached)),
            ];
            s.reasoning.effort = Some(ReasoningEffort::Max);
            s.service_tier = ServiceTier::Flex;
        },
        [
            reject(
                "agent.reasoning.effort",
                "The harness does not support reasoning effort 'max'.",
            ),
            reject("agent.tools[0].enabled", PTC_TRUE),
            reject("agent.tools[0].enabled", PTC_TRUE),
        ],
    )]);
}
