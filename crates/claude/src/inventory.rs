//! The inventory check: the built-in tools claude reports in its `system/init` message must be
//! exactly the Session's tool set, so a pinned-version drift (a new default tool, a withheld one
//! that came back) fails the Turn before the model is offered anything unexpected.
//!
//! Left to native (never compared): `StructuredOutput` (`--json-schema`'s terminal tool) and
//! `ToolSearch` (present in the native default set and added by `tool_search`), and every MCP
//! tool (`mcp__…`: the functions server and the declared servers, whose inventories are read
//! at preparation, [`crate::mcp`]).

use std::collections::BTreeSet;

use serde_json::Value;
use switchboard_protocol::SessionConfiguration;

use crate::flags::{self, STRUCTURED_OUTPUT, TOOL_SEARCH, ToolProfile};
use crate::subagents::{AGENT_TOOL, TASK_TOOL};
use crate::workspace_tools;

/// The tools claude 2.1.332 reports for `--tools=default` with [`workspace_tools::WITHHELD`]
/// disallowed, launched as the adapter launches it (read from its `system/init`; the
/// permission prompt tool adds the plan-mode pair), `ToolSearch` aside.
pub const WORKSPACE_TOOLS: [&str; 13] = [
    "Bash",
    "Edit",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "NotebookEdit",
    "Read",
    "ReportFindings",
    "Skill",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// The built-in tools one Session must run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inventory {
    expected: BTreeSet<String>,
}

impl Inventory {
    pub fn of(config: &SessionConfiguration, profile: ToolProfile) -> Inventory {
        let expected = match profile {
            ToolProfile::None => flags::builtin_tools(config),
            ToolProfile::Workspace => {
                let withheld = workspace_tools::withheld(config);
                let mut tools: Vec<&str> = WORKSPACE_TOOLS
                    .into_iter()
                    .filter(|t| !withheld.contains(t))
                    .collect();
                if flags::multi_agent(config) {
                    tools.push(AGENT_TOOL);
                }
                tools
            }
        };
        // `--tools` names the Subagent tool `Agent`; `init` reports it under its old name.
        let expected = expected
            .into_iter()
            .map(|t| if t == AGENT_TOOL { TASK_TOOL } else { t });
        Inventory {
            expected: expected
                .into_iter()
                .filter(|t| !left_to_native(t))
                .map(str::to_owned)
                .collect(),
        }
    }

    /// Checks an `init` message's `tools`; the public error message when they differ.
    pub fn check(&self, init: &Value) -> Result<(), String> {
        let Some(tools) = init.get("tools").and_then(Value::as_array) else {
            return Err(
                "Claude Code did not report its tool inventory; the Session cannot start."
                    .to_owned(),
            );
        };
        let reported: BTreeSet<String> = tools
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| !left_to_native(t))
            .map(str::to_owned)
            .collect();
        if reported == self.expected {
            return Ok(());
        }
        let list = |names: Vec<&String>| {
            if names.is_empty() {
                "none".to_owned()
            } else {
                names
                    .into_iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        Err(format!(
            "Claude Code's built-in tools differ from the Session's tool set \
             (unexpected: {}; missing: {}).",
            list(reported.difference(&self.expected).collect()),
            list(self.expected.difference(&reported).collect()),
        ))
    }
}

fn left_to_native(tool: &str) -> bool {
    tool == STRUCTURED_OUTPUT || tool == TOOL_SEARCH || tool.starts_with("mcp__")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::tests::config;
    use serde_json::json;
    use switchboard_protocol::WebSearchControl;
    use switchboard_protocol::configuration::{ContextSize, WebSearchMode};

    /// What claude 2.1.332 reported for a workspace Session with structured output and MCP.
    fn workspace_init() -> Value {
        json!({"type": "system", "subtype": "init", "tools": [
            "Bash", "Edit", "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree",
            "NotebookEdit", "Read", "ReportFindings", "Skill", "ToolSearch", "WebFetch",
            "WebSearch", "Write",
            "StructuredOutput", "mcp__lab__get_weather", "mcp__functions__lookup"]})
    }

    #[test]
    fn the_pinned_workspace_set_passes_with_native_and_mcp_tools_left_aside() {
        let inventory = Inventory::of(&config(), ToolProfile::Workspace);
        assert_eq!(inventory.check(&workspace_init()), Ok(()));
    }

    #[test]
    fn a_tool_that_came_back_or_went_missing_fails_with_the_public_message() {
        let inventory = Inventory::of(&config(), ToolProfile::Workspace);
        let mut init = workspace_init();
        let tools = init["tools"].as_array_mut().unwrap();
        tools.retain(|t| t != "Write");
        tools.push(json!("AskUserQuestion"));
        assert_eq!(
            inventory.check(&init),
            Err(
                "Claude Code's built-in tools differ from the Session's tool set \
                 (unexpected: AskUserQuestion; missing: Write)."
                    .to_owned()
            )
        );
        assert!(inventory.check(&json!({"subtype": "init"})).is_err());
    }

    #[test]
    fn a_multi_agent_session_expects_the_subagent_tool_under_its_reported_name() {
        let mut c = config();
        c.execution_controls.subagents = Some(switchboard_protocol::subagents::SubagentControl {
            max_concurrent: None,
        });
        let none = Inventory::of(&c, ToolProfile::None);
        assert_eq!(
            none.check(&json!({"tools": ["Task", "mcp__functions__f"]})),
            Ok(())
        );
        assert!(none.check(&json!({"tools": []})).is_err());
        let mut init = workspace_init();
        init["tools"].as_array_mut().unwrap().push(json!("Task"));
        assert_eq!(
            Inventory::of(&c, ToolProfile::Workspace).check(&init),
            Ok(())
        );
    }

    #[test]
    fn disabled_web_search_and_the_none_profile_expect_their_own_sets() {
        let mut c = config();
        c.execution_controls.web_search = Some(WebSearchControl {
            mode: WebSearchMode::Disabled,
            context_size: ContextSize::Medium,
            allowed_domains: None,
            location: None,
        });
        let workspace = Inventory::of(&c, ToolProfile::Workspace);
        // WebSearch and WebFetch are no longer expected.
        assert!(workspace.check(&workspace_init()).is_err());
        let mut init = workspace_init();
        init["tools"]
            .as_array_mut()
            .unwrap()
            .retain(|t| t != "WebSearch" && t != "WebFetch");
        assert_eq!(workspace.check(&init), Ok(()));

        // `environment: none`: nothing built in beyond what the controls add.
        let none = Inventory::of(&config(), ToolProfile::None);
        assert_eq!(
            none.check(&json!({"tools": ["ToolSearch", "mcp__lab__x"]})),
            Ok(())
        );
        assert!(none.check(&json!({"tools": ["Bash"]})).is_err());
    }
}
