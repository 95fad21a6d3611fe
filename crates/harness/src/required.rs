//! What a Runtime must advertise to run a Session snapshot (core-contracts §6.4 "Core
//! requires").
//!
//! Declarations say what a harness supports; this says which of those operations one Session
//! actually uses, so Core dispatches it only to a Runtime advertising all of them. Per the
//! spec, web_search, programmatic_tool_calling, verbosity, reasoning and service tier travel
//! in ExecutionControls and need only `execution_controls`. Requirements that depend on one
//! input (images) or on Runtime state (native session recovery) are not part of a snapshot.

use switchboard_execution::{Placement, SessionSnapshot, TextFormat};

use crate::Capability::{self, *};

/// The capabilities this snapshot needs, deduplicated, in wire order.
pub fn required_capabilities(snapshot: &SessionSnapshot) -> Vec<Capability> {
    let mut required = vec![
        Streaming,
        Steering,
        DurableTurns,
        DurableInputReceipts,
        Preparation,
        ExecutionControls,
        ToolObservations,
    ];
    if snapshot.placement.is_workspace() {
        required.extend([
            LocalEnvironment,
            WorkspaceReadPreparation,
            WorkspaceOutputExport,
        ]);
        // A workspace Switchboard provides needs a Runtime that can isolate it (bubblewrap).
        if matches!(snapshot.placement, Placement::OpenaiHosted) {
            required.push(ManagedWorkspace);
        }
    } else {
        required.push(EnvironmentNone);
    }
    // With multi_agent off, the harness must be able to keep Subagents off.
    required.push(if snapshot.multi_agent.enabled {
        SubagentObservations
    } else {
        SubagentControl
    });
    if snapshot.functions().next().is_some() {
        required.push(FunctionTools);
    }
    if snapshot.has_tool_search() {
        required.push(ToolSearch);
    }
    if matches!(snapshot.text.format, TextFormat::JsonSchema { .. }) {
        required.extend([StructuredOutput, MessageItems]);
        let declared = crate::declaration(snapshot.harness);
        if snapshot.placement.is_workspace() && declared.structured_output.workspace_capability {
            required.push(WorkspaceStructuredOutput);
        }
    }
    for (_, server) in snapshot.mcp_servers() {
        // mcp_http_tools covers every public MCP server, stdio included.
        required.push(McpHttpTools);
        if server.required {
            required.push(McpHttpRequired);
        }
        if server.credential_id.is_some() {
            required.push(McpHttpBearerAuth);
        }
    }
    required.sort();
    required.dedup();
    required
}
