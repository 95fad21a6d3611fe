//! The built-in harness declarations, one file per harness.
//!
//! A Session selects its harness with `x_agents_core.harness` (on the Agent or the Session);
//! without one it gets the deployment default, [`DEFAULT_HARNESS`] unless
//! `switchboard serve --default-harness` says otherwise.

mod claude_code;
mod codex;
mod minimax_code;

pub use claude_code::CLAUDE_CODE;
pub use codex::CODEX;
pub use minimax_code::MINIMAX_CODE;

use switchboard_execution::HarnessId;

use crate::Declaration;

/// The harness a deployment runs when neither the Agent nor the Session names one.
pub const DEFAULT_HARNESS: HarnessId = HarnessId::Codex;

/// The declaration of a built-in harness.
pub fn declaration(harness: HarnessId) -> &'static Declaration {
    match harness {
        HarnessId::Codex => &CODEX,
        HarnessId::ClaudeCode => &CLAUDE_CODE,
        HarnessId::MinimaxCode => &MINIMAX_CODE,
    }
}

#[cfg(test)]
mod tests {
    //! The declared support and the capability maximum describe the same harness twice (once
    //! for admission, once for Runtime advertisements); these tests keep them in step.

    use super::*;
    use crate::declaration::PlacementKind;
    use crate::{Capability, McpTransportKind, StdioCwd};
    use switchboard_execution::{Verbosity, WebSearchMode};

    fn implied(d: &Declaration) -> Vec<(Capability, bool)> {
        vec![
            (
                Capability::EnvironmentNone,
                d.placements.contains(&PlacementKind::None),
            ),
            (
                Capability::LocalEnvironment,
                d.placements.iter().any(|p| *p != PlacementKind::None),
            ),
            (Capability::SubagentObservations, d.multi_agent),
            (Capability::FunctionTools, d.functions.tools),
            (Capability::FunctionResultImages, d.functions.results.images),
            (
                Capability::StructuredOutput,
                d.structured_output.json_schema,
            ),
            (
                Capability::WorkspaceStructuredOutput,
                d.structured_output.json_schema && d.structured_output.workspace_capability,
            ),
            (Capability::ToolSearch, d.tool_search),
            (Capability::MessageImages, d.message_input.images),
            (Capability::McpHttpTools, !d.mcp.transports.is_empty()),
            (Capability::McpHttpRequired, d.mcp.required_servers),
            (Capability::McpHttpBearerAuth, d.mcp.bearer_auth),
            (
                Capability::TextVerbosity,
                d.execution
                    .text_verbosities
                    .iter()
                    .any(|v| *v != Verbosity::Medium),
            ),
            (
                Capability::ProgrammaticToolCallingDisable,
                d.execution.programmatic_tool_calling.contains(&false),
            ),
            (
                Capability::WebSearchControl,
                d.execution
                    .web_search
                    .modes
                    .contains(&WebSearchMode::Disabled),
            ),
        ]
    }

    #[test]
    fn declared_support_matches_the_capability_maximum() {
        for h in HarnessId::ALL {
            let d = declaration(h);
            assert_eq!(d.harness, h);
            for (capability, supported) in implied(d) {
                assert_eq!(
                    d.has_capability(capability),
                    supported,
                    "{}: {}",
                    h.as_str(),
                    capability.as_str()
                );
            }
        }
    }

    #[test]
    fn every_runtime_requirement_that_is_always_on_is_in_every_maximum() {
        use Capability::*;
        let always = [
            Streaming,
            Steering,
            DurableTurns,
            DurableInputReceipts,
            Preparation,
            ExecutionControls,
            ToolObservations,
            WorkspaceReadPreparation,
            WorkspaceOutputExport,
            MessageItems,
            SubagentControl,
        ];
        for h in HarnessId::ALL {
            for c in always {
                assert!(
                    declaration(h).has_capability(c),
                    "{}: {}",
                    h.as_str(),
                    c.as_str()
                );
            }
        }
    }

    #[test]
    fn declarations_are_well_formed() {
        for h in HarnessId::ALL {
            let d = declaration(h);
            assert!(
                !d.providers.is_empty(),
                "{}: the first provider is the default",
                h.as_str()
            );
            assert!(!d.execution.service_tiers.is_empty());
            assert!(d.execution.text_verbosities.contains(&Verbosity::Medium));
            // A stdio cwd rule other than Any only makes sense where stdio is a transport.
            if d.mcp.stdio_cwd != StdioCwd::Any {
                assert!(d.mcp.transports.contains(&McpTransportKind::Stdio));
            }
            let mut caps = d.capabilities.to_vec();
            caps.sort();
            caps.dedup();
            assert_eq!(
                caps.len(),
                d.capabilities.len(),
                "{}: duplicate capability",
                h.as_str()
            );
        }
    }
}
