//! MiniMax Code (`minimax_code`): `@minimax-ai/code` driven over ACP (`node <cli.js> acp`).
//!
//! Sources: execution-tools.md (every MiniMax sentence), core-contracts §7.3 (stored values
//! the spec did not change), harnesses.md §4. The adapter serves public functions as the MCP
//! server `functions`; native web search needs a MiniMax account credential, so only
//! `disabled` runs; stdio servers start in a private home directory.

use switchboard_execution::{
    ConnectionOrigin, ContextSize, HarnessId, ProviderProtocol, ServiceTier, Verbosity,
    WebSearchMode,
};

use crate::Capability as C;
use crate::declaration::*;

pub static MINIMAX_CODE: Declaration = Declaration {
    harness: HarnessId::MinimaxCode,
    label: "MiniMax Code",
    model_on_command_line: false,
    native: NativePackage {
        name: switchboard_pins::MINIMAX_CODE_PACKAGE,
        version: switchboard_pins::MINIMAX_CODE_VERSION,
        // `crates/acp`'s minimax_code profile; the package itself is not installable here.
        adapter: true,
    },
    // Its custom provider config needs the model's limits for every protocol.
    providers: &[
        ProviderSupport {
            protocol: ProviderProtocol::Anthropic,
            requires_token_limits: true,
        },
        ProviderSupport {
            protocol: ProviderProtocol::Responses,
            requires_token_limits: true,
        },
        ProviderSupport {
            protocol: ProviderProtocol::ChatCompletions,
            requires_token_limits: true,
        },
    ],
    placements: &PlacementKind::ALL,
    multi_agent: true,
    functions: Functions {
        tools: true,
        name: NamePattern::Any,
        // Functions are tools of the MCP server `functions`; MCP input schemas are objects.
        parameters_object_root: true,
        parameters_numbers: SchemaNumbers::Any,
        results: FunctionResults {
            images: false,
            image_urls: false,
            failed_result_images: false,
        },
    },
    structured_output: StructuredOutput {
        json_schema: false,
        binary64_output_schema: false,
        schema_numbers: SchemaNumbers::Any,
        workspace_capability: false,
    },
    tool_search: false,
    message_input: MessageInput {
        images: false,
        image_sources: ImageSources::Any,
        whitespace_only_text: false,
    },
    computer_use: false,
    automations: false,
    execution: Execution {
        // Native features.webSearch=false.
        web_search: WebSearch {
            modes: &[WebSearchMode::Disabled],
            context_sizes: &[ContextSize::Medium],
            allowed_domains: false,
            location: false,
        },
        programmatic_tool_calling: &[false],
        text_verbosities: &[Verbosity::Medium],
        // harness_config is `{}` only: no native reasoning setting exists.
        reasoning_efforts: &[],
        reasoning_summaries: &[],
        service_tiers: &[ServiceTier::Auto],
    },
    mcp: Mcp {
        transports: &[McpTransportKind::Http, McpTransportKind::Stdio],
        origins: &[ConnectionOrigin::Environment],
        reserved_labels: &[ReservedLabel {
            label: "functions",
            when: ReservedWhen::AgentHasFunctions,
        }],
        label: NamePattern::Any,
        tool_name: NamePattern::Any,
        allowed_tools: false,
        allowed_tools_on_stdio: false,
        required_servers: false,
        bearer_auth: true,
        expands_env_references: false,
        stdio_cwd: StdioCwd::Rejected,
    },
    native_tool_names: NativeToolNames::Declared,
    // `{}` only: no native setting exists.
    harness_config: HarnessConfig::Members(&[]),
    conflicts: &[],
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
        C::SubagentControl,
        C::DurableInputReceipts,
        C::DurableTurns,
        C::FunctionTools,
        C::McpHttpTools,
        C::McpHttpBearerAuth,
    ],
};
