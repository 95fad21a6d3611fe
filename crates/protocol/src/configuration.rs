//! The frozen Session configuration that `execution_prepare` carries.
//!
//! Core resolves a Session's snapshot once, at creation, and sends this configuration before any
//! input; an adapter prepares native execution from it and must keep it unchanged for the
//! Session's whole life, including after its process is evicted and resumed. Start never replaces
//! any of it.
//!
//! [`ExecutionControls`] follows one rule: an option is present only when the Agent set it or a
//! pinned default applies. Absent means "leave the harness's native behaviour untouched", so
//! adapters must not invent a value for an absent option.
//!
//! JSON Schemas (`parameters`, `output_format.schema`) are `serde_json::Value` under the
//! workspace's `arbitrary_precision` feature: every number keeps its digits and objects keep
//! their key order.
//!
//! The value enums are defined once in `switchboard-vocabulary`, shared with the public model
//! and re-exported here so adapters name them from the protocol. The committed wire snapshot
//! (`tests/wire_snapshot.rs`) is what keeps the wire from moving when one of them changes.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
pub use switchboard_vocabulary::{
    ContextSize, HarnessId, ProviderProtocol, ReasoningEffort, ReasoningSummary, ServiceTier,
    Verbosity, WebSearchLocation, WebSearchMode,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionConfiguration {
    pub harness: HarnessId,
    pub model: String,
    /// The Agent's instructions; the harness's own system prompt stays in place.
    pub instructions: Option<String>,
    pub model_provider: ModelProviderConfig,
    /// Application functions, fixed for the Session.
    pub function_tools: Vec<FunctionToolSpec>,
    /// Deferred discovery is on (some `function_tools` have `defer_loading`).
    pub tool_search: bool,
    pub execution_controls: ExecutionControls,
    /// The Session's service-origin HTTP MCP servers, in declared order ([`crate::mcp`]).
    pub mcp_servers: Vec<crate::mcp::McpServer>,
    /// The Session's environment-origin HTTP MCP servers, in declared order: the harness
    /// connects to them from the workspace itself, never through the credential gateway.
    #[serde(default)]
    pub mcp_environment_servers: Vec<crate::mcp::McpServer>,
    /// The Session's stdio MCP servers, in declared order; only on a workspace placement.
    #[serde(default)]
    pub mcp_stdio_servers: Vec<crate::mcp::McpStdioServer>,
    /// Harness-specific settings from `x_agents_core.harness_config`, null when none.
    pub harness_config: Option<Map<String, Value>>,
    /// The Session's workspace; null on `environment: none`.
    pub workspace: Option<crate::workspace::Workspace>,
}

/// The model provider the harness calls. `api_key` is a secret: it is never printed by `Debug`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelProviderConfig {
    pub protocol: ProviderProtocol,
    /// The provider's API root as its own SDK takes it (`http://host:port/v1` for responses).
    pub base_url: String,
    pub api_key: String,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u64>,
}

impl fmt::Debug for ModelProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelProviderConfig")
            .field("protocol", &self.protocol)
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("context_window", &self.context_window)
            .field("max_output_tokens", &self.max_output_tokens)
            .finish()
    }
}

/// One application function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments, exactly as the Agent declared it.
    pub parameters: Value,
    pub defer_loading: bool,
}

/// Per-Session execution options. Each is present only when the Agent set it or a pinned
/// default applies; `None` keeps the harness's native behaviour.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutionControls {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_format: Option<OutputFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_search: Option<WebSearchControl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub programmatic_tool_calling: Option<ProgrammaticToolCallingControl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_verbosity: Option<Verbosity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningControl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<ServiceTier>,
    /// Set only on a multi-agent Session: the harness runs its native Subagents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagents: Option<crate::subagents::SubagentControl>,
}

/// `text.format` of type `json_schema`, in the Agents API form (no `name`, no `strict`).
///
/// A struct with a one-value `type` rather than a tagged enum: serde buffers tagged enums, and
/// buffering would turn exact numbers in `schema` into maps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputFormat {
    #[serde(rename = "type")]
    pub kind: OutputFormatType,
    pub schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormatType {
    JsonSchema,
}

impl OutputFormat {
    pub fn json_schema(schema: Value) -> Self {
        OutputFormat {
            kind: OutputFormatType::JsonSchema,
            schema,
        }
    }
}

/// The resolved `web_search` tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSearchControl {
    pub mode: WebSearchMode,
    pub context_size: ContextSize,
    /// `None` = no restriction; `Some([])` stays an empty list.
    pub allowed_domains: Option<Vec<String>>,
    pub location: Option<WebSearchLocation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgrammaticToolCallingControl {
    pub enabled: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReasoningControl {
    pub effort: Option<ReasoningEffort>,
    pub summary: Option<ReasoningSummary>,
}
