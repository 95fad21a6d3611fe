//! Feature conflicts: pairs a harness supports alone but not together.
//!
//! The message names both features; `param` is the first feature's path.

use switchboard_execution::{SessionSnapshot, TextFormat};

use super::AdmissionError;
use crate::{Declaration, Feature};

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    for &(first, second) in decl.conflicts {
        if active(first, snapshot) && active(second, snapshot) {
            return Err(AdmissionError::at(
                first.param(),
                format!(
                    "The harness does not support {} with {}.",
                    first.as_str(),
                    second.as_str()
                ),
            ));
        }
    }
    Ok(())
}

fn active(feature: Feature, snapshot: &SessionSnapshot) -> bool {
    match feature {
        Feature::MultiAgent => snapshot.multi_agent.enabled,
        Feature::Mcp => snapshot.mcp_servers().next().is_some(),
        Feature::ToolSearch => snapshot.has_tool_search(),
        Feature::JsonSchema => matches!(snapshot.text.format, TextFormat::JsonSchema { .. }),
        // Installed Skills and Plugin MCP are known only after the Environment is prepared.
        Feature::InstalledCapabilities => false,
    }
}
