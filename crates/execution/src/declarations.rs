//! The parsed, defaulted form of an Agent's execution declarations.
//!
//! Everything here is what the execution parser produces from a request body after protocol
//! validation: defaults are applied (saved form), nothing is qualified against a harness yet.
//! Serialization of these types is the *public* saved form (`agents-api-wire.md` §3–§4), so the
//! store can keep them as JSON text and the HTTP edge can echo them unchanged.
//!
//! JSON Schemas (`parameters`, `text.format.schema`) are kept as `serde_json::Value` with the
//! workspace-wide `arbitrary_precision` feature: every number keeps its decimal digits exactly as
//! sent and never passes through `f64`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

// Defined once below both this model and the protocol; re-exported so callers name them here.
pub use switchboard_vocabulary::{
    ContextSize, HarnessId, ProviderProtocol, ReasoningEffort, ReasoningSummary, ServiceTier,
    Verbosity, WebSearchLocation, WebSearchMode,
};

/// `tools[]`: one tool declaration, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Tool {
    Function(FunctionTool),
    ToolSearch,
    WebSearch(WebSearchTool),
    ProgrammaticToolCalling(ProgrammaticToolCalling),
    Mcp(McpTool),
    ComputerUse(ComputerUseTool),
    Automations,
}

impl Tool {
    /// The wire `type` tag of this tool.
    pub fn kind(&self) -> &'static str {
        match self {
            Tool::Function(_) => "function",
            Tool::ToolSearch => "tool_search",
            Tool::WebSearch(_) => "web_search",
            Tool::ProgrammaticToolCalling(_) => "programmatic_tool_calling",
            Tool::Mcp(_) => "mcp",
            Tool::ComputerUse(_) => "computer_use",
            Tool::Automations => "automations",
        }
    }
}

/// An application function. The caller runs it; the native harness only asks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionTool {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments, kept exactly as sent.
    pub parameters: Value,
    /// Deferred definitions load lazily through `tool_search`. Defaults to false; never null.
    pub defer_loading: bool,
    /// Official field carried as resource data; `null` when not sent.
    #[serde(rename = "async")]
    pub is_async: Option<bool>,
}

/// `web_search`: saved with every mode (omitted/null mode → `live`, omitted/null context_size →
/// `medium`, omitted domains and location → null, `[]` stays `[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchTool {
    pub mode: WebSearchMode,
    pub context_size: ContextSize,
    pub allowed_domains: Option<Vec<String>>,
    pub location: Option<WebSearchLocation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgrammaticToolCalling {
    /// Defaults to true in the saved form (the official default-on behaviour).
    pub enabled: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputerUseTool {
    pub include_screenshots: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionOrigin {
    /// Connects from the service host; the default for HTTP servers.
    Service,
    /// Connects from the workspace; the only origin of stdio servers.
    Environment,
}

/// An MCP server declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpTool {
    pub server_label: String,
    pub transport: McpTransport,
    pub connection_origin: ConnectionOrigin,
    /// `None` (omitted or null) permits every tool; `Some([])` permits none. Kept distinct end to end.
    pub allowed_tools: Option<Vec<String>>,
    /// Native thread creation and cold resume wait for the server to initialize.
    pub required: bool,
    /// A Vault credential reference; never a secret itself.
    pub credential_id: Option<String>,
    /// Always `{}` once admitted (nonempty metadata is rejected); echoed for the official shape.
    pub request_metadata: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpTransport {
    Http {
        server_url: String,
        /// Non-secret headers in the order sent; names are unique ignoring case.
        headers: Map<String, Value>,
    },
    Stdio {
        command: String,
        args: Vec<String>,
        cwd: String,
        /// Names of Environment variables passed to the server; their values never reach Core.
        env_vars: Vec<String>,
    },
}

/// `text.format`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TextFormat {
    Text,
    /// The Agents API form: no `name`, no `strict`. The schema is kept exactly as sent.
    JsonSchema {
        schema: Value,
    },
}

/// `text`: defaults to `{format: {type: text}, verbosity: medium}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextConfig {
    pub format: TextFormat,
    pub verbosity: Verbosity,
}

impl Default for TextConfig {
    fn default() -> Self {
        TextConfig {
            format: TextFormat::Text,
            verbosity: Verbosity::Medium,
        }
    }
}

/// `reasoning`: both keys always present, null when unset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Reasoning {
    pub effort: Option<ReasoningEffort>,
    pub summary: Option<ReasoningSummary>,
}

/// `multi_agent`: off by default; on without a maximum means 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MultiAgent {
    pub enabled: bool,
    pub max_concurrent_subagents: Option<u32>,
}

/// `x_agents_core.model_provider`. `api_key` is write-only: never serialized into a public
/// response (see [`ModelProvider::public`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelProvider {
    pub protocol: ProviderProtocol,
    /// The provider's API root as its own SDK takes it (`http://host:port/v1` for responses and
    /// chat_completions, `http://host:port` for anthropic).
    pub base_url: String,
    pub api_key: String,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u64>,
}

impl ModelProvider {
    /// The public projection: every field but `api_key`.
    pub fn public(&self) -> Value {
        serde_json::json!({
            "protocol": self.protocol,
            "base_url": self.base_url,
            "context_window": self.context_window,
            "max_output_tokens": self.max_output_tokens,
        })
    }
}

/// `x_agents_core`: the Switchboard extension object (sent by SDK users through `extra_body`).
/// Each member is optional so that Session values can override saved ones field by field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct XAgentsCore {
    pub harness: Option<HarnessId>,
    pub model_provider: Option<ModelProvider>,
    pub harness_config: Option<Map<String, Value>>,
}

impl XAgentsCore {
    /// Field-by-field override: every member `over` sets replaces the one in `self`.
    pub fn overridden_by(&self, over: &XAgentsCore) -> XAgentsCore {
        XAgentsCore {
            harness: over.harness.or(self.harness),
            model_provider: over
                .model_provider
                .clone()
                .or_else(|| self.model_provider.clone()),
            harness_config: over
                .harness_config
                .clone()
                .or_else(|| self.harness_config.clone()),
        }
    }

    /// The public projection, without `api_key`.
    pub fn public(&self) -> Value {
        serde_json::json!({
            "harness": self.harness,
            "model_provider": self.model_provider.as_ref().map(ModelProvider::public),
            "harness_config": self.harness_config,
        })
    }
}

/// The saved (persisted) Agent configuration, with every default applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentConfig {
    pub model: String,
    pub name: Option<String>,
    pub instructions: Option<String>,
    pub metadata: Map<String, Value>,
    pub tools: Vec<Tool>,
    pub text: TextConfig,
    pub reasoning: Reasoning,
    pub service_tier: ServiceTier,
    pub multi_agent: MultiAgent,
    /// Official resource data carried unchanged (`{async}`), null when not sent.
    pub compaction: Option<Value>,
    /// Official resource data carried unchanged (`{time_awareness}`), null when not sent.
    pub experimental: Option<Value>,
    pub x_agents_core: XAgentsCore,
}

/// An Agent update: only supplied fields change; nested objects are replaced whole; `null`
/// clears a nullable field or resets a defaulted one to its default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentPatch {
    pub model: Option<String>,
    pub name: Option<Option<String>>,
    pub instructions: Option<Option<String>>,
    pub metadata: Option<Map<String, Value>>,
    pub tools: Option<Vec<Tool>>,
    pub text: Option<TextConfig>,
    pub reasoning: Option<Reasoning>,
    pub service_tier: Option<ServiceTier>,
    pub multi_agent: Option<MultiAgent>,
    pub compaction: Option<Option<Value>>,
    pub experimental: Option<Option<Value>>,
    pub x_agents_core: Option<XAgentsCore>,
}

impl AgentConfig {
    /// A saved configuration with every official default (agents-api-wire.md §11): name and
    /// instructions null, metadata `{}`, tools `[]`, text `{format: text, verbosity: medium}`,
    /// reasoning `{effort: null, summary: null}`, service_tier `auto`, multi_agent disabled, no
    /// compaction or experimental settings, no extension.
    pub fn new(model: impl Into<String>) -> Self {
        AgentConfig {
            model: model.into(),
            name: None,
            instructions: None,
            metadata: Map::new(),
            tools: Vec::new(),
            text: TextConfig::default(),
            reasoning: Reasoning::default(),
            service_tier: ServiceTier::default(),
            multi_agent: MultiAgent::default(),
            compaction: None,
            experimental: None,
            x_agents_core: XAgentsCore::default(),
        }
    }

    /// Applies an update patch. Every member replaces the saved one whole, except
    /// `experimental`, whose settings merge by key ([`merge_experimental`]).
    pub fn apply(&mut self, patch: AgentPatch) {
        let AgentPatch {
            model,
            name,
            instructions,
            metadata,
            tools,
            text,
            reasoning,
            service_tier,
            multi_agent,
            compaction,
            experimental,
            x_agents_core,
        } = patch;
        if let Some(v) = model {
            self.model = v;
        }
        if let Some(v) = name {
            self.name = v;
        }
        if let Some(v) = instructions {
            self.instructions = v;
        }
        if let Some(v) = metadata {
            self.metadata = v;
        }
        if let Some(v) = tools {
            self.tools = v;
        }
        if let Some(v) = text {
            self.text = v;
        }
        if let Some(v) = reasoning {
            self.reasoning = v;
        }
        if let Some(v) = service_tier {
            self.service_tier = v;
        }
        if let Some(v) = multi_agent {
            self.multi_agent = v;
        }
        if let Some(v) = compaction {
            self.compaction = v;
        }
        if let Some(v) = experimental {
            self.experimental = merge_experimental(self.experimental.as_ref(), v.as_ref());
        }
        if let Some(v) = x_agents_core {
            self.x_agents_core = v;
        }
    }
}

/// Experimental settings merge by key (official update semantics): each supplied key replaces
/// the current value, the others keep theirs, and a setting never seen is at its default
/// (every experimental feature is off). `supplied == None` clears the settings.
pub fn merge_experimental(current: Option<&Value>, supplied: Option<&Value>) -> Option<Value> {
    let supplied = supplied?.as_object()?;
    let mut merged = Map::new();
    merged.insert("time_awareness".into(), Value::Bool(false));
    for layer in [current.and_then(Value::as_object), Some(supplied)]
        .into_iter()
        .flatten()
    {
        merged.extend(layer.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Some(Value::Object(merged))
}

/// The Session's execution placement (`environment.type`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Placement {
    None,
    OpenaiHosted,
    SelfHosted { workspace_directory: String },
}

impl Placement {
    pub fn is_workspace(&self) -> bool {
        !matches!(self, Placement::None)
    }
}

/// The immutable configuration a Session runs with: saved references and inline declarations
/// resolved, defaults applied, frozen at creation. `validate_selection` checks it against the
/// selected harness's declaration; the Runtime receives it unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSnapshot {
    pub agent_id: Option<String>,
    pub placement: Placement,
    pub harness: HarnessId,
    pub model: String,
    pub instructions: Option<String>,
    /// The frozen tool set, `tool_search` included (Session and SSE resources project it out).
    pub tools: Vec<Tool>,
    pub text: TextConfig,
    pub reasoning: Reasoning,
    pub service_tier: ServiceTier,
    pub multi_agent: MultiAgent,
    pub model_provider: Option<ModelProvider>,
    pub harness_config: Option<Map<String, Value>>,
}

impl SessionSnapshot {
    pub fn functions(&self) -> impl Iterator<Item = &FunctionTool> {
        self.tools.iter().filter_map(|t| match t {
            Tool::Function(f) => Some(f),
            _ => None,
        })
    }

    pub fn mcp_servers(&self) -> impl Iterator<Item = (usize, &McpTool)> {
        self.tools.iter().enumerate().filter_map(|(i, t)| match t {
            Tool::Mcp(m) => Some((i, m)),
            _ => None,
        })
    }

    pub fn has_tool_search(&self) -> bool {
        self.tools.iter().any(|t| matches!(t, Tool::ToolSearch))
    }
}
