//! The request family of a tool list. Below `tools` and the MCP parsers, which both branch on it.

/// Which request family a tool list belongs to (agents-api-wire.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolForm {
    /// Agent create/update (`PersistedAgentToolParam`).
    Saved,
    /// Session create/update `agent.tools` (`AgentToolParam`): MCP transports may carry
    /// `authorization` (http) and `env` (stdio), both rejected when nonempty.
    Inline,
}
