//! Claude Code (`claude_code`): `@anthropic-ai/claude-code` driven over stream-json and the
//! SDK control protocol.
//!
//! Sources: execution-tools.md (every Claude sentence), core-contracts §7.3 (stored values the
//! spec did not change), harnesses.md §3. The SDK reads JSON numbers as binary64, and the
//! adapter serves functions from an in-process MCP server named `functions`.

use switchboard_execution::{
    ConnectionOrigin, ContextSize, HarnessId, ProviderProtocol, ReasoningEffort, ServiceTier,
    Verbosity, WebSearchMode,
};

use crate::Capability as C;
use crate::declaration::*;

pub static CLAUDE_CODE: Declaration = Declaration {
    harness: HarnessId::ClaudeCode,
    label: "Claude Code",
    // `--model <model>`.
    model_on_command_line: true,
    native: NativePackage {
        name: switchboard_pins::CLAUDE_CODE_PACKAGE,
        version: switchboard_pins::CLAUDE_CODE_VERSION,
        adapter: true,
    },
    providers: &[ProviderSupport {
        protocol: ProviderProtocol::Anthropic,
        requires_token_limits: false,
    }],
    placements: &PlacementKind::ALL,
    multi_agent: true,
    functions: Functions {
        tools: true,
        // Any name: the native client normalizes it (see native_tool_names).
        name: NamePattern::Any,
        // Functions are MCP tools of the adapter's server; MCP input schemas are objects.
        parameters_object_root: true,
        // JavaScript reads every number (as binary64).
        parameters_numbers: SchemaNumbers::Any,
        // Anthropic tool results carry only inline base64 images, and never on an error.
        results: FunctionResults {
            images: true,
            image_urls: false,
            failed_result_images: false,
        },
    },
    structured_output: StructuredOutput {
        json_schema: true,
        binary64_output_schema: true,
        schema_numbers: SchemaNumbers::Any,
        workspace_capability: true,
    },
    // ENABLE_TOOL_SEARCH=true with anthropic/alwaysLoad per definition.
    tool_search: true,
    // The bridge and Anthropic-compatible providers reject text without a non-whitespace
    // character.
    message_input: MessageInput {
        images: true,
        // Anthropic image blocks: a `url` source or a `base64` one of these types.
        image_sources: ImageSources::HttpOrInlineBase64 {
            media_types: &["image/png", "image/jpeg", "image/gif", "image/webp"],
        },
        whitespace_only_text: false,
    },
    computer_use: false,
    automations: false,
    execution: Execution {
        web_search: WebSearch {
            modes: &[WebSearchMode::Disabled, WebSearchMode::Live],
            context_sizes: &[ContextSize::Medium],
            allowed_domains: false,
            location: false,
        },
        // The native REPL would call tools from model-written code, outside the tool records
        // that function receipts and tool observations read.
        programmatic_tool_calling: &[false],
        text_verbosities: &[Verbosity::Medium],
        // Native `effort`; the SDK has no public reasoning-summary setting.
        reasoning_efforts: &[
            ReasoningEffort::Low,
            ReasoningEffort::Medium,
            ReasoningEffort::High,
            ReasoningEffort::Xhigh,
            ReasoningEffort::Max,
        ],
        reasoning_summaries: &[],
        service_tiers: &[ServiceTier::Auto],
    },
    mcp: Mcp {
        transports: &[McpTransportKind::Http, McpTransportKind::Stdio],
        origins: &[ConnectionOrigin::Service, ConnectionOrigin::Environment],
        // The adapter's own function server.
        reserved_labels: &[ReservedLabel {
            label: "functions",
            when: ReservedWhen::Always,
        }],
        // The SDK names MCP tools mcp__<label>__<tool>.
        label: NamePattern::AsciiAlphanumericUnderscoreHyphen,
        // The native client normalizes tool names; the adapter rejects normalized collisions.
        tool_name: NamePattern::Any,
        allowed_tools: true,
        allowed_tools_on_stdio: false,
        required_servers: true,
        bearer_auth: true,
        expands_env_references: true,
        stdio_cwd: StdioCwd::WorkspaceDirectory,
    },
    // The spec runs structured output beside Subagents, Skills, MCP and ToolSearch, and tool
    // search beside declared MCP tools, so only the stored pair it does not address remains.
    // The SDK names MCP tools mcp__<label>__<tool>, normalized; the adapter's functions are
    // tools of its server `functions`.
    native_tool_names: NativeToolNames::McpNormalized {
        function_server: "functions",
    },
    // Only `effort` is applied (as `--effort`); `thinking` is not implemented yet.
    harness_config: HarnessConfig::Members(&[HarnessConfigMember {
        name: "effort",
        values: &["low", "medium", "high", "xhigh", "max"],
    }]),
    conflicts: &[(Feature::ToolSearch, Feature::InstalledCapabilities)],
    capabilities: &[
        C::SubagentObservations,
        C::Streaming,
        C::Permissions,
        C::Usage,
        C::Resume,
        C::WorkspaceAuthoring,
        C::Steering,
        C::MessageItems,
        C::ToolObservations,
        C::EnvironmentNone,
        C::LocalEnvironment,
        C::Preparation,
        C::WorkspaceReadPreparation,
        C::WorkspaceOutputExport,
        C::ManagedWorkspace,
        C::ProgrammaticToolCallingDisable,
        C::WebSearchControl,
        C::ExecutionControls,
        C::StructuredOutput,
        C::WorkspaceStructuredOutput,
        C::ToolSearch,
        C::MessageImages,
        C::FunctionResultImages,
        C::SubagentControl,
        C::DurableInputReceipts,
        C::DurableTurns,
        C::FunctionTools,
        C::McpHttpTools,
        C::McpHttpRequired,
        C::McpHttpBearerAuth,
    ],
};
