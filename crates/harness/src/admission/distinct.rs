//! Session-wide uniqueness (core-contracts §2.3 step 5): each tool control at most once, each
//! MCP server label at most once.
//!
//! Tool controls are every tool that is not a function or an MCP server (`tool_search`,
//! `web_search`, `programmatic_tool_calling`, `computer_use`, `automations`): each sets one
//! native switch, so two of a kind would ask the harness for two values of one setting. The
//! protocol parser already rejects a second `web_search` or `tool_search`; this catches the
//! rest, whatever the parser lets through.

use std::collections::HashSet;

use switchboard_execution::{SessionSnapshot, Tool};

use super::AdmissionError;

const DISTINCT_CONTROLS: &str = "Execution requires distinct tool controls.";
const DISTINCT_LABELS: &str = "Execution requires distinct MCP server labels.";

pub(super) fn check(snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    let mut controls = HashSet::new();
    for tool in &snapshot.tools {
        if matches!(tool, Tool::Function(_) | Tool::Mcp(_)) {
            continue;
        }
        if !controls.insert(tool.kind()) {
            return Err(AdmissionError::at("agent.tools", DISTINCT_CONTROLS));
        }
    }
    let mut labels = HashSet::new();
    for (_, server) in snapshot.mcp_servers() {
        if !labels.insert(server.server_label.as_str()) {
            return Err(AdmissionError::at("agent.tools", DISTINCT_LABELS));
        }
    }
    Ok(())
}
