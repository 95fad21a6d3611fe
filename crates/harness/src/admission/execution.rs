//! The Execution part: option values checked against the declaration's lists.
//!
//! The spec gives no text for these messages, only that each names the field; so each names
//! the member in `param` and repeats the rejected value in the message. Tools come first, in
//! tool order, then `reasoning` and `service_tier`. When the Session replaces the saved tools,
//! the snapshot already holds the replacement, so rejected saved tools never reach here.

use switchboard_execution::{ContextSize, SessionSnapshot, Tool, WebSearchTool};

use super::{AdmissionError, tool_path, wire_name};
use crate::Declaration;

const MEDIUM_CONTEXT_ONLY: &str = "The harness supports web_search context_size 'medium' only.";
const NO_ALLOWED_DOMAINS: &str = "The harness does not support web_search allowed_domains.";
const NO_LOCATION: &str = "The harness does not support web_search location.";
const NO_COMPUTER_USE: &str = "The harness does not support computer_use tools.";
const NO_AUTOMATIONS: &str = "The harness does not support automations tools.";

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let execution = &decl.execution;
    for (i, tool) in snapshot.tools.iter().enumerate() {
        match tool {
            Tool::WebSearch(search) => web_search(decl, i, search)?,
            Tool::ProgrammaticToolCalling(ptc)
                if !execution.programmatic_tool_calling.contains(&ptc.enabled) =>
            {
                return Err(AdmissionError::at(
                    format!("{}.enabled", tool_path(i)),
                    format!(
                        "The harness does not support programmatic_tool_calling enabled={}.",
                        ptc.enabled
                    ),
                ));
            }
            Tool::ComputerUse(_) if !decl.computer_use => {
                return Err(AdmissionError::at(tool_path(i), NO_COMPUTER_USE));
            }
            Tool::Automations if !decl.automations => {
                return Err(AdmissionError::at(tool_path(i), NO_AUTOMATIONS));
            }
            _ => {}
        }
    }

    if let Some(effort) = snapshot.reasoning.effort
        && !execution.reasoning_efforts.contains(&effort)
    {
        return Err(AdmissionError::at(
            "agent.reasoning.effort",
            format!(
                "The harness does not support reasoning effort '{}'.",
                wire_name(effort)
            ),
        ));
    }
    if let Some(summary) = snapshot.reasoning.summary
        && !execution.reasoning_summaries.contains(&summary)
    {
        return Err(AdmissionError::at(
            "agent.reasoning.summary",
            format!(
                "The harness does not support reasoning summary '{}'.",
                wire_name(summary)
            ),
        ));
    }
    if !execution.service_tiers.contains(&snapshot.service_tier) {
        return Err(AdmissionError::at(
            "agent.service_tier",
            format!(
                "The harness does not support service_tier '{}'.",
                wire_name(snapshot.service_tier)
            ),
        ));
    }
    Ok(())
}

/// A web_search control: its mode, then each search setting. Settings are checked whatever
/// the mode, because the resolved values travel to the harness either way.
fn web_search(decl: &Declaration, i: usize, search: &WebSearchTool) -> Result<(), AdmissionError> {
    let declared = &decl.execution.web_search;
    let at = |member: &str| format!("{}.{member}", tool_path(i));
    if !declared.modes.contains(&search.mode) {
        return Err(AdmissionError::at(
            at("mode"),
            format!(
                "The harness does not support web_search mode '{}'.",
                wire_name(search.mode)
            ),
        ));
    }
    if !declared.context_sizes.contains(&search.context_size) {
        let message = if declared.context_sizes == [ContextSize::Medium] {
            MEDIUM_CONTEXT_ONLY.to_owned()
        } else {
            format!(
                "The harness does not support web_search context_size '{}'.",
                wire_name(search.context_size)
            )
        };
        return Err(AdmissionError::at(at("context_size"), message));
    }
    if search.allowed_domains.is_some() && !declared.allowed_domains {
        return Err(AdmissionError::at(
            at("allowed_domains"),
            NO_ALLOWED_DOMAINS,
        ));
    }
    if search.location.is_some() && !declared.location {
        return Err(AdmissionError::at(at("location"), NO_LOCATION));
    }
    Ok(())
}
