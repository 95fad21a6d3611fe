//! Codex (`codex`): `@openai/codex` driven through `codex app-server` (JSON-RPC over stdio).
//!
//! Sources: execution-tools.md (every Codex sentence), core-contracts §7.3 (stored values the
//! spec did not change), harnesses.md §2. Codex reads JSON numbers losslessly and passes the
//! output schema as the native `outputSchema`, so structured output has no binary64 limit.

use switchboard_execution::{
    ConnectionOrigin, ContextSize, HarnessId, ProviderProtocol, ReasoningEffort, ReasoningSummary,
    ServiceTier, Verbosity, WebSearchMode,
};

use crate::Capability as C;
use crate::declaration::*;

pub static CODEX: Declaration = Declaration {
    harness: HarnessId::Codex,
    label: "Codex",
    model_on_command_line: false,
    native: NativePackage {
        name: switchboard_pins::CODEX_PACKAGE,
        version: switchboard_pins::CODEX_VERSION,
        adapter: true,
    },
    providers: &[ProviderSupport {
        protocol: ProviderProtocol::Responses,
        requires_token_limits: false,
    }],
    placements: &PlacementKind::ALL,
    multi_agent: true,
    functions: Functions {
        tools: true,
        // `thread/start` refuses any other dynamic tool name.
        name: NamePattern::AsciiAlphanumericUnderscoreHyphenUpTo128,
        // Dynamic tools take any JSON Schema value as `inputSchema`.
        parameters_object_root: false,
        // `thread/start` reads dynamic tool schemas without 128-bit integers.
        parameters_numbers: SchemaNumbers::No128BitIntegers,
        results: FunctionResults {
            images: true,
            image_urls: true,
            failed_result_images: true,
        },
    },
    structured_output: StructuredOutput {
        json_schema: true,
        binary64_output_schema: false,
        // `turn/start` reads `outputSchema` as it reads dynamic tool schemas.
        schema_numbers: SchemaNumbers::No128BitIntegers,
        workspace_capability: false,
    },
    // Off: deferred functions do not work on codex 0.171.0 as the adapter drives it (checked
    // against the real binary). `thread/start` refuses a top-level dynamic tool with
    // `deferLoading` ("deferred dynamic tool must include a namespace"); inside a
    // `{type: "namespace"}` spec it is hidden from the model, but codex offers its client
    // `tool_search` tool only when the model's catalog entry has `supports_search_tool`, which a
    // custom provider's model (e.g. `gpt-fake`) lacks unless a `model_catalog_json` supplies a
    // full entry for it. `features.tool_search=true` alone does not offer it.
    tool_search: false,
    message_input: MessageInput {
        images: true,
        image_sources: ImageSources::Any,
        whitespace_only_text: true,
    },
    computer_use: false,
    automations: false,
    execution: Execution {
        // Native `web_search` plus `tools.web_search` settings.
        web_search: WebSearch {
            modes: &[
                WebSearchMode::Disabled,
                WebSearchMode::Cached,
                WebSearchMode::Live,
            ],
            context_sizes: &[ContextSize::Low, ContextSize::Medium, ContextSize::High],
            allowed_domains: true,
            location: true,
        },
        // true → native code_mode; false → code_mode, code_mode_only, code_mode_prewarm off.
        programmatic_tool_calling: &[true, false],
        // The native model catalog decides per model; Codex sends `text.verbosity`.
        text_verbosities: &[Verbosity::Low, Verbosity::Medium, Verbosity::High],
        // Native `model_reasoning_effort` and `model_reasoning_summary`.
        reasoning_efforts: &[
            ReasoningEffort::None,
            ReasoningEffort::Minimal,
            ReasoningEffort::Low,
            ReasoningEffort::Medium,
            ReasoningEffort::High,
            ReasoningEffort::Xhigh,
        ],
        reasoning_summaries: &[
            ReasoningSummary::Auto,
            ReasoningSummary::Concise,
            ReasoningSummary::Detailed,
        ],
        // Codex has a native `service_tier`, but its values changed across releases and were
        // not verified for 0.171.0; only the provider default is admitted.
        service_tiers: &[ServiceTier::Auto],
    },
    mcp: Mcp {
        transports: &[McpTransportKind::Http, McpTransportKind::Stdio],
        origins: &[ConnectionOrigin::Service, ConnectionOrigin::Environment],
        // The native ChatGPT apps server.
        reserved_labels: &[ReservedLabel {
            label: "codex_apps",
            when: ReservedWhen::Always,
        }],
        // The native connection manager refuses to start a server with any other name.
        label: NamePattern::AsciiAlphanumericUnderscoreHyphen,
        tool_name: NamePattern::Any,
        allowed_tools: true,
        allowed_tools_on_stdio: true,
        required_servers: true,
        bearer_auth: true,
        expands_env_references: false,
        // command, args, cwd and env_vars go to the native `[mcp_servers]` table unchanged.
        stdio_cwd: StdioCwd::Any,
    },
    // Dynamic tools keep their names; MCP tools arrive in `mcp__<label>` namespaces.
    native_tool_names: NativeToolNames::Declared,
    // The adapter reads no harness_config member.
    harness_config: HarnessConfig::Unchecked,
    conflicts: &[],
    capabilities: &[
        C::SubagentObservations,
        C::Streaming,
        C::Permissions,
        C::Usage,
        C::Resume,
        C::NativeSessionRecovery,
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
        C::TextVerbosity,
        C::StructuredOutput,
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
