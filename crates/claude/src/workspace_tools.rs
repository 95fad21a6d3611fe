//! The built-in tools of a Session on a workspace placement.
//!
//! There the Session runs claude's native `claude_code` tool set (`--tools=default`: Bash, the
//! file tools, Agent, Skill, WebSearch, WebFetch, … as the pinned version defines it), without
//! the tools that need someone to answer or that outlive the Turn (`--disallowedTools`, which
//! takes them out of what the model is offered):
//! - ask-user: `AskUserQuestion`;
//! - scheduling: `CronCreate`, `CronDelete`, `CronList`, `ScheduleWakeup`;
//! - workflow: `Workflow`;
//! - background: `Monitor` and `TaskStop` (`KillShell`'s current name), which watch and stop
//!   background tasks, and `SendMessage`, which writes to a running background agent;
//! - `ListAgents`;
//! - and `Agent` (Subagents), unless the Session is multi-agent: Subagents are off otherwise
//!   (the `subagent_control` capability), as codex's `features.multi_agent = false`.
//!
//! `web_search: disabled` also removes `WebSearch` and `WebFetch`; `live` and an omitted control
//! keep both. Names were read from the tools claude 2.1.332 offers the model with `--tools=default`.
//! What remains is [`crate::inventory::WORKSPACE_TOOLS`], checked at every native turn's `init`.
//!
//! Unattended, a permission ask for a kept tool is allowed ([`PermissionPolicy`]): the workspace
//! (or its sandbox) is the boundary, and nobody could answer the ask.
//!
//! [`PermissionPolicy`]: crate::stream::PermissionPolicy

use switchboard_protocol::SessionConfiguration;
use switchboard_protocol::configuration::WebSearchMode;

/// Tools a workspace Session never has.
pub const WITHHELD: [&str; 11] = [
    "AskUserQuestion",
    "CronCreate",
    "CronDelete",
    "CronList",
    "ScheduleWakeup",
    "Workflow",
    "Monitor",
    "TaskStop",
    "SendMessage",
    "ListAgents",
    "Agent",
];

/// The tools `web_search: disabled` removes on a workspace.
pub const WEB_TOOLS: [&str; 2] = ["WebSearch", "WebFetch"];

/// `--disallowedTools` of a workspace Session.
pub fn withheld(config: &SessionConfiguration) -> Vec<&'static str> {
    let mut out = WITHHELD.to_vec();
    if crate::flags::multi_agent(config) {
        out.retain(|t| *t != crate::subagents::AGENT_TOOL);
    }
    let disabled = config
        .execution_controls
        .web_search
        .as_ref()
        .is_some_and(|w| w.mode == WebSearchMode::Disabled);
    if disabled {
        out.extend(WEB_TOOLS);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::tests::config;
    use switchboard_protocol::WebSearchControl;
    use switchboard_protocol::configuration::ContextSize;

    #[test]
    fn disabled_web_search_withholds_search_and_fetch() {
        let mut c = config();
        assert_eq!(withheld(&c), WITHHELD.to_vec());
        for (mode, web_withheld) in [
            (WebSearchMode::Live, false),
            (WebSearchMode::Disabled, true),
        ] {
            c.execution_controls.web_search = Some(WebSearchControl {
                mode,
                context_size: ContextSize::Medium,
                allowed_domains: None,
                location: None,
            });
            let w = withheld(&c);
            assert_eq!(w.contains(&"WebFetch"), web_withheld);
            assert_eq!(w.contains(&"WebSearch"), web_withheld);
        }
    }
}
