//! Runtime capabilities: what a Runtime advertises per harness (core-contracts §6.4,
//! `AgentKindCapabilities`).
//!
//! A capability says a Runtime *can* run an operation; it never enables one. Core dispatches a
//! Session only to a Runtime whose advertisement covers [`crate::required_capabilities`], and
//! a [`crate::Declaration`]'s `capabilities` is the most any Runtime may advertise for it.

/// One capability, named as on the wire. The variant order is the wire field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    SubagentObservations,
    Streaming,
    Permissions,
    Usage,
    Resume,
    NativeSessionRecovery,
    WorkspaceAuthoring,
    Steering,
    MessageItems,
    ToolObservations,
    EnvironmentNone,
    LocalEnvironment,
    Preparation,
    WorkspaceReadPreparation,
    WorkspaceOutputExport,
    ProgrammaticToolCallingDisable,
    WebSearchControl,
    ExecutionControls,
    TextVerbosity,
    StructuredOutput,
    ToolSearch,
    MessageImages,
    FunctionResultImages,
    SubagentControl,
    DurableInputReceipts,
    DurableTurns,
    FunctionTools,
    McpHttpTools,
    McpHttpRequired,
    McpHttpBearerAuth,
    ManagedWorkspace,
    WorkspaceStructuredOutput,
}

impl Capability {
    pub const ALL: [Capability; 32] = [
        Capability::SubagentObservations,
        Capability::Streaming,
        Capability::Permissions,
        Capability::Usage,
        Capability::Resume,
        Capability::NativeSessionRecovery,
        Capability::WorkspaceAuthoring,
        Capability::Steering,
        Capability::MessageItems,
        Capability::ToolObservations,
        Capability::EnvironmentNone,
        Capability::LocalEnvironment,
        Capability::Preparation,
        Capability::WorkspaceReadPreparation,
        Capability::WorkspaceOutputExport,
        Capability::ProgrammaticToolCallingDisable,
        Capability::WebSearchControl,
        Capability::ExecutionControls,
        Capability::TextVerbosity,
        Capability::StructuredOutput,
        Capability::ToolSearch,
        Capability::MessageImages,
        Capability::FunctionResultImages,
        Capability::SubagentControl,
        Capability::DurableInputReceipts,
        Capability::DurableTurns,
        Capability::FunctionTools,
        Capability::McpHttpTools,
        Capability::McpHttpRequired,
        Capability::McpHttpBearerAuth,
        Capability::ManagedWorkspace,
        Capability::WorkspaceStructuredOutput,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Capability::SubagentObservations => "subagent_observations",
            Capability::Streaming => "streaming",
            Capability::Permissions => "permissions",
            Capability::Usage => "usage",
            Capability::Resume => "resume",
            Capability::NativeSessionRecovery => "native_session_recovery",
            Capability::WorkspaceAuthoring => "workspace_authoring",
            Capability::Steering => "steering",
            Capability::MessageItems => "message_items",
            Capability::ToolObservations => "tool_observations",
            Capability::EnvironmentNone => "environment_none",
            Capability::LocalEnvironment => "local_environment",
            Capability::Preparation => "preparation",
            Capability::WorkspaceReadPreparation => "workspace_read_preparation",
            Capability::WorkspaceOutputExport => "workspace_output_export",
            Capability::ProgrammaticToolCallingDisable => "programmatic_tool_calling_disable",
            Capability::WebSearchControl => "web_search_control",
            Capability::ExecutionControls => "execution_controls",
            Capability::TextVerbosity => "text_verbosity",
            Capability::StructuredOutput => "structured_output",
            Capability::ToolSearch => "tool_search",
            Capability::MessageImages => "message_images",
            Capability::FunctionResultImages => "function_result_images",
            Capability::SubagentControl => "subagent_control",
            Capability::DurableInputReceipts => "durable_input_receipts",
            Capability::DurableTurns => "durable_turns",
            Capability::FunctionTools => "function_tools",
            Capability::McpHttpTools => "mcp_http_tools",
            Capability::McpHttpRequired => "mcp_http_required",
            Capability::McpHttpBearerAuth => "mcp_http_bearer_auth",
            Capability::ManagedWorkspace => "managed_workspace",
            Capability::WorkspaceStructuredOutput => "workspace_structured_output",
        }
    }

    pub fn parse(name: &str) -> Option<Capability> {
        Capability::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_follow_wire_order() {
        for (i, c) in Capability::ALL.into_iter().enumerate() {
            assert_eq!(Capability::parse(c.as_str()), Some(c));
            // `ALL` lists the variants in declaration order, so `Ord` is the wire order.
            if i > 0 {
                assert!(Capability::ALL[i - 1] < c);
            }
        }
        assert_eq!(Capability::parse("home_removal"), None);
    }
}
