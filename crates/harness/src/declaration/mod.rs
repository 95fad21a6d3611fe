//! The shape of a harness declaration: what one native harness supports, as plain data.
//!
//! A [`Declaration`] answers every question Session admission asks about a harness ("does it
//! run function tools?", "which web_search modes?", "may an MCP stdio server name its own
//! cwd?") with a field, so the validator in [`crate::admission`] never branches on which
//! harness it is checking. The three values live in [`crate::declarations`]; a Runtime that
//! advertises fewer [`Capability`]s narrows what can run, never widens it.
//!
//! Field names follow the specification's vocabulary (execution-tools.md, core-contracts §7).

mod execution;
mod harness_config;
mod mcp;
mod names;
mod schema_numbers;

pub use execution::{Execution, WebSearch};
pub use harness_config::{HarnessConfig, HarnessConfigMember};
pub use mcp::{Mcp, McpTransportKind, ReservedLabel, ReservedWhen, StdioCwd};
pub use names::{NamePattern, NativeToolNames};
pub use schema_numbers::SchemaNumbers;

use switchboard_execution::{HarnessId, Placement, ProviderProtocol};

use crate::Capability;

/// Everything one harness supports. Every field is a fact about the native harness and its
/// adapter; none is policy of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub harness: HarnessId,
    /// Display name ("Codex", "Claude Code", "MiniMax Code").
    pub label: &'static str,
    /// The adapter passes the model identifier as a process argument, which cannot hold NUL.
    pub model_on_command_line: bool,
    /// The exact native package the adapter drives; any other version is refused at start.
    pub native: NativePackage,
    /// Model provider protocols, in order: the first is the default.
    pub providers: &'static [ProviderSupport],
    /// Execution placements (`environment.type`) the harness runs on.
    pub placements: &'static [PlacementKind],
    /// `multi_agent.enabled: true` (Subagents with observations).
    pub multi_agent: bool,
    pub functions: Functions,
    pub structured_output: StructuredOutput,
    /// Deferred function discovery: `tool_search` with `defer_loading` functions.
    pub tool_search: bool,
    pub message_input: MessageInput,
    /// The `computer_use` tool type. No native harness here runs it.
    pub computer_use: bool,
    /// The `automations` tool type. No native harness here runs it.
    pub automations: bool,
    /// The Execution part: web search, programmatic tool calling, verbosity, reasoning,
    /// service tier.
    pub execution: Execution,
    pub mcp: Mcp,
    /// What the model sees as tool names; two declared tools with one native name are
    /// rejected.
    pub native_tool_names: NativeToolNames,
    /// The `x_agents_core.harness_config` members the adapter applies.
    pub harness_config: HarnessConfig,
    /// Pairs of features the harness supports alone but not together.
    pub conflicts: &'static [(Feature, Feature)],
    /// The most a Runtime running this harness may advertise (core-contracts §7.2
    /// `Capabilities`). A Runtime may narrow it; an advertisement beyond it is rejected.
    pub capabilities: &'static [Capability],
}

impl Declaration {
    /// The protocol a Session gets when its provider bundle names none.
    pub fn default_protocol(&self) -> ProviderProtocol {
        self.providers[0].protocol
    }

    pub fn provider(&self, protocol: ProviderProtocol) -> Option<&ProviderSupport> {
        self.providers.iter().find(|p| p.protocol == protocol)
    }

    pub fn has_capability(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }
}

/// The npm package that carries the native harness, pinned exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativePackage {
    pub name: &'static str,
    pub version: &'static str,
    /// This build has an adapter that drives the package (and `switchboard harness install`
    /// can install it). Without one no Runtime of this build can run the harness, so
    /// admission says so instead of naming an install command.
    pub adapter: bool,
}

/// One model provider protocol the harness can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderSupport {
    pub protocol: ProviderProtocol,
    /// The native harness cannot learn the model's limits from the provider, so the bundle
    /// must carry positive `context_window` and `max_output_tokens`.
    pub requires_token_limits: bool,
}

/// `environment.type` without its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlacementKind {
    None,
    OpenaiHosted,
    SelfHosted,
}

impl PlacementKind {
    pub const ALL: [PlacementKind; 3] = [
        PlacementKind::None,
        PlacementKind::OpenaiHosted,
        PlacementKind::SelfHosted,
    ];

    pub fn of(placement: &Placement) -> PlacementKind {
        match placement {
            Placement::None => PlacementKind::None,
            Placement::OpenaiHosted => PlacementKind::OpenaiHosted,
            Placement::SelfHosted { .. } => PlacementKind::SelfHosted,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PlacementKind::None => "none",
            PlacementKind::OpenaiHosted => "openai_hosted",
            PlacementKind::SelfHosted => "self_hosted",
        }
    }
}

/// Application functions and the result forms the harness can hand back to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Functions {
    /// Function tools at all (Codex dynamic tools, Claude's in-process MCP server, MiniMax's
    /// MCP server `functions`).
    pub tools: bool,
    /// Which function names the native harness accepts.
    pub name: NamePattern,
    /// `parameters` must state `"type": "object"` at its root. Harnesses that serve functions
    /// as MCP tools need it: an MCP tool's `inputSchema` is an object schema by definition.
    pub parameters_object_root: bool,
    /// Which numbers `parameters` may contain.
    pub parameters_numbers: SchemaNumbers,
    pub results: FunctionResults,
}

/// Which function result contents the harness can apply natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionResults {
    /// `input_image` parts in a result.
    pub images: bool,
    /// Images by URL; without it only inline `data:image/png|jpeg;base64,` images pass.
    pub image_urls: bool,
    /// Images in a result with `success: false`.
    pub failed_result_images: bool,
}

/// `text.format: {type: "json_schema"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StructuredOutput {
    pub json_schema: bool,
    /// The native SDK reads JSON numbers as binary64 and needs an explicit object root, so the
    /// schema must state `"type": "object"` and keep every number through binary64.
    pub binary64_output_schema: bool,
    /// Which numbers the schema may contain (checked beside the binary64 rule).
    pub schema_numbers: SchemaNumbers,
    /// On a workspace placement the Runtime must also advertise `workspace_structured_output`
    /// (Claude: the bridge reports structured output per placement).
    pub workspace_capability: bool,
}

/// What a caller's message may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageInput {
    /// `input_image` parts in messages.
    pub images: bool,
    /// Which `image_url`s a message image may have.
    pub image_sources: ImageSources,
    /// A message whose text is only whitespace (and has no image).
    pub whitespace_only_text: bool,
}

/// Which message image URLs the adapter can hand the native harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageSources {
    /// Any URL the parser accepts.
    Any,
    /// `http(s)://` URLs, or `data:<type>;base64,<data>` URLs with a nonempty payload and one
    /// of these media types (Anthropic image blocks: `url` or `base64` sources).
    HttpOrInlineBase64 {
        media_types: &'static [&'static str],
    },
}

impl ImageSources {
    pub fn accepts(self, image_url: &str) -> bool {
        match self {
            ImageSources::Any => true,
            ImageSources::HttpOrInlineBase64 { media_types } => {
                if image_url.starts_with("https://") || image_url.starts_with("http://") {
                    return true;
                }
                image_url
                    .strip_prefix("data:")
                    .and_then(|rest| rest.split_once(";base64,"))
                    .is_some_and(|(mime, data)| media_types.contains(&mime) && !data.is_empty())
            }
        }
    }
}

/// A part of a Session configuration that a [`Declaration`]'s `conflicts` can pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    MultiAgent,
    Mcp,
    ToolSearch,
    JsonSchema,
    /// Skills and Plugin MCP installed in the Environment. Known only once the Environment is
    /// prepared, so never active in a Session snapshot.
    InstalledCapabilities,
}

impl Feature {
    pub fn as_str(self) -> &'static str {
        match self {
            Feature::MultiAgent => "multi_agent",
            Feature::Mcp => "mcp",
            Feature::ToolSearch => "tool_search",
            Feature::JsonSchema => "json_schema",
            Feature::InstalledCapabilities => "installed_capabilities",
        }
    }

    /// The configuration path a conflict names when this feature comes first in the pair.
    pub fn param(self) -> &'static str {
        match self {
            Feature::MultiAgent => "agent.multi_agent",
            Feature::Mcp | Feature::ToolSearch => "agent.tools",
            Feature::JsonSchema => "agent.text.format",
            Feature::InstalledCapabilities => "environment",
        }
    }
}
