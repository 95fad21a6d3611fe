//! Multi-agent execution: Subagents need a harness that reports their identities.
//!
//! The stored rule "Multi-agent execution does not support function or MCP tools." is gone:
//! the spec makes a Subagent's function call a required action of the root Turn and records a
//! Subagent's MCP calls as `mcp_call` Items, for every harness.

use switchboard_execution::SessionSnapshot;

use super::AdmissionError;
use crate::Declaration;

pub(super) fn check(decl: &Declaration, snapshot: &SessionSnapshot) -> Result<(), AdmissionError> {
    if snapshot.multi_agent.enabled && !decl.multi_agent {
        return Err(AdmissionError::at(
            "agent.multi_agent",
            "The harness does not support multi-agent execution.",
        ));
    }
    Ok(())
}
